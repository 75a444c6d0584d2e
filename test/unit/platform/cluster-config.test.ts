import { describe, expect, it } from 'vitest';
import { readClusterDeclarations } from '../../../runtime/platform/cluster-config.js';

describe('GANTRY_CLUSTERS', () => {
  it('reads each named cluster from its own variables', () => {
    expect(readClusterDeclarations({
      GANTRY_CLUSTERS: ' eu, us_east ',
      GANTRY_CLUSTER_EU_URL: 'postgres://su:pw@eu:6432/postgres',
      GANTRY_CLUSTER_EU_DIRECT_URL: 'postgres://su:pw@eu:5432/postgres',
      GANTRY_CLUSTER_EU_MAX_CONNECTIONS: '12',
      GANTRY_CLUSTER_US_EAST_URL: 'postgres://su:pw@us:5432/postgres',
    }, 4)).toEqual([
      { name: 'eu', url: 'postgres://su:pw@eu:6432/postgres', directUrl: 'postgres://su:pw@eu:5432/postgres', maxConnections: 12 },
      { name: 'us_east', url: 'postgres://su:pw@us:5432/postgres', directUrl: null, maxConnections: null },
    ]);
    expect(readClusterDeclarations({}, 4)).toEqual([]);
  });

  it('refuses what it cannot use, naming the variable', () => {
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        readClusterDeclarations(env, 4);
      } catch (error) {
        return [(error as { code: string }).code, (error as Error).message];
      }
      return null;
    };
    expect(refusal({ GANTRY_CLUSTERS: 'eu' })).toEqual(['invalid_config', 'GANTRY_CLUSTERS names "eu" but GANTRY_CLUSTER_EU_URL is not set']);
    expect(refusal({ GANTRY_CLUSTERS: 'default', GANTRY_CLUSTER_DEFAULT_URL: 'x' })?.[1]).toMatch(/^GANTRY_CLUSTERS: "default" is the main cluster's name/);
    expect(refusal({ GANTRY_CLUSTERS: 'EU-1' })?.[1]).toMatch(/^GANTRY_CLUSTERS: "EU-1" is not a cluster name/);
    expect(refusal({ GANTRY_CLUSTERS: 'eu,eu', GANTRY_CLUSTER_EU_URL: 'x' })?.[1]).toBe('GANTRY_CLUSTERS names "eu" twice');
    expect(refusal({ GANTRY_CLUSTERS: 'eu', GANTRY_CLUSTER_EU_URL: 'x', GANTRY_CLUSTER_EU_MAX_CONNECTIONS: '2' })?.[1])
      .toBe('GANTRY_CLUSTER_EU_MAX_CONNECTIONS must be an integer of at least 4, got "2"');
  });
});
