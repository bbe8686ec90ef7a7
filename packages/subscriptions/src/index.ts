/** Public API of @agentd/subscriptions (filled in by its issue). */
export {};
