/** Public API of @agentd/codemode (filled in by its issue). */
export {};
