/** Public API of @agentd/dispatch (filled in by its issue). */
export {};
