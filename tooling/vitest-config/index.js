/** Shared vitest settings: workspace packages resolve to their TypeScript sources. */
const conditions = ['@agentd/source', 'module', 'node', 'development|production'];

export const sharedConfig = {
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['@agentd/source'] } },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
};
