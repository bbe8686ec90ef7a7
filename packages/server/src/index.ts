/** Public API of @agentd/server (filled in by its issue). */
export {};
