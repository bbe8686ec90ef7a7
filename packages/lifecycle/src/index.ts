/** Public API of @agentd/lifecycle (filled in by its issue). */
export {};
