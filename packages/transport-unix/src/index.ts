/** Public API of @agentd/transport-unix (filled in by its issue). */
export {};
