/** Public API of @agentd/transport-http (filled in by its issue). */
export {};
