import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.js';
import { acquireCluster } from '../../../runtime/platform/cluster.js';

describe('the URLs of a DATABASE_URL cluster', () => {
  it('derives session work from DATABASE_DIRECT_URL and transaction work from DATABASE_URL', async () => {
    const cluster = await acquireCluster(
      loadConfig({ DATABASE_URL: 'postgres://su:s%40cret@pooler:6432/postgres?sslmode=require', DATABASE_DIRECT_URL: 'postgres://su:s%40cret@db:5432/postgres' }),
    );
    expect(cluster.urlFor('proj_a')).toBe('postgres://su:s%40cret@db:5432/proj_a');
    expect(cluster.urlAs('proj_a', 'authenticator', 'p@ss/word')).toBe('postgres://authenticator:p%40ss%2Fword@db:5432/proj_a');
    expect(cluster.pooledUrlFor('proj_a')).toBe('postgres://su:s%40cret@pooler:6432/proj_a?sslmode=require');
    expect(cluster.pooledUrlAs('proj_a', 'authenticator', 'p@ss/word')).toBe('postgres://authenticator:p%40ss%2Fword@pooler:6432/proj_a?sslmode=require');
  });

  it('uses DATABASE_URL for both without a direct URL', async () => {
    const cluster = await acquireCluster(loadConfig({ DATABASE_URL: 'postgres://su:pw@db:5432/postgres' }));
    expect(cluster.urlFor('x')).toBe(cluster.pooledUrlFor('x'));
    expect(cluster.urlAs('x', 'u', 'p')).toBe('postgres://u:p@db:5432/x');
    expect(cluster.pooledUrlAs('x', 'u', 'p')).toBe('postgres://u:p@db:5432/x');
  });
});
