/** Public API of @agentd/transport-vsock (filled in by its issue). */
export {};
