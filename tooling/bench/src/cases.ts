/** Every server × transport the harness runs, and which floor and SDK cases each of ours is compared with. */
import type { Flavour } from './driver/sessions.js';
import type { ChildTransport, Impl } from './servers/launch.js';

export interface BenchCase {
  readonly id: string;
  readonly impl: Impl;
  readonly transport: ChildTransport;
  readonly flavour: Flavour;
  /** Throughput/latency load runs (the Code Mode case only lists and verifies). */
  readonly load: boolean;
  /** Runs the full catalogue and validates arguments (floors answer without validation). */
  readonly validates: boolean;
  /** Which `tools/list` this case measures, if any. */
  readonly listing?: string;
}

export interface Comparison {
  readonly ours: string;
  readonly label: string;
  readonly floor: string;
  readonly sdks: readonly string[];
  /** Throughput target at 32 in flight, as a fraction of the floor's. */
  readonly floorTarget: number;
  /** Throughput target at 1 in flight, as a fraction of the floor's (pipelined transports). */
  readonly sequentialTarget?: number;
  /** Whether the peak RSS target applies (the issue sets it for the NDJSON servers). */
  readonly rssTarget?: boolean;
}

/** The same server on the same transport in both eras; the modern one should keep most of the legacy one's throughput. */
export interface EraPair {
  readonly label: string;
  readonly legacy: string;
  readonly modern: string;
  readonly floorLegacy: string;
  readonly floorModern: string;
  /** Modern throughput at 32 in flight, as a fraction of legacy's. */
  readonly target: number;
}

/** Whole-process targets against the floor, for every transport a floor exists for. */
export const COLD_START_TARGET = 1.5;
export const PEAK_RSS_TARGET = 1.3;
/** The fetch handler on Node against `serveHttp`, stateless, 32 in flight. */
export const FETCH_PAIR = {
  fetch: 'agentd-fetch/http-modern',
  node: 'agentd/http-modern',
  target: 0.9,
} as const;

export const CASES: readonly BenchCase[] = [
  {
    id: 'agentd/stdio',
    impl: 'agentd',
    transport: 'stdio',
    flavour: 'ndjson',
    load: true,
    validates: true,
    listing: 'agentd classic',
  },
  { id: 'agentd/unix', impl: 'agentd', transport: 'unix', flavour: 'ndjson', load: true, validates: true },
  {
    id: 'agentd/stdio-modern',
    impl: 'agentd',
    transport: 'stdio',
    flavour: 'ndjson-modern',
    load: true,
    validates: true,
  },
  {
    id: 'agentd/unix-modern',
    impl: 'agentd',
    transport: 'unix',
    flavour: 'ndjson-modern',
    load: true,
    validates: true,
  },
  {
    id: 'agentd/http-modern',
    impl: 'agentd',
    transport: 'http',
    flavour: 'http-modern',
    load: true,
    validates: true,
  },
  {
    id: 'agentd/http-legacy',
    impl: 'agentd',
    transport: 'http',
    flavour: 'http-session',
    load: true,
    validates: true,
  },
  {
    id: 'agentd-fetch/http-modern',
    impl: 'agentd-fetch',
    transport: 'http',
    flavour: 'http-modern',
    load: true,
    validates: true,
  },
  {
    id: 'agentd-fetch/http-legacy',
    impl: 'agentd-fetch',
    transport: 'http',
    flavour: 'http-session',
    load: true,
    validates: true,
  },
  {
    id: 'agentd-bun/http-modern',
    impl: 'agentd-bun',
    transport: 'http',
    flavour: 'http-modern',
    load: true,
    validates: true,
  },
  {
    id: 'agentd-codemode/stdio',
    impl: 'agentd-codemode',
    transport: 'stdio',
    flavour: 'ndjson',
    load: false,
    validates: true,
    listing: 'agentd code mode',
  },
  {
    id: 'sdk-v1/stdio',
    impl: 'sdk-v1',
    transport: 'stdio',
    flavour: 'ndjson',
    load: true,
    validates: true,
    listing: 'sdk-v1',
  },
  {
    id: 'sdk-v1/http-session',
    impl: 'sdk-v1',
    transport: 'http',
    flavour: 'http-session',
    load: true,
    validates: true,
  },
  {
    id: 'sdk-v1/http-stateless',
    impl: 'sdk-v1',
    transport: 'http-stateless',
    flavour: 'http-legacy-stateless',
    load: true,
    validates: true,
  },
  {
    id: 'sdk-v2/stdio',
    impl: 'sdk-v2',
    transport: 'stdio',
    flavour: 'ndjson',
    load: true,
    validates: true,
    listing: 'sdk-v2',
  },
  {
    id: 'sdk-v2/http-session',
    impl: 'sdk-v2',
    transport: 'http',
    flavour: 'http-session',
    load: true,
    validates: true,
  },
  {
    id: 'sdk-v2/http-stateless',
    impl: 'sdk-v2',
    transport: 'http-stateless',
    flavour: 'http-modern',
    load: true,
    validates: true,
  },
  {
    id: 'floor/stdio',
    impl: 'floor',
    transport: 'stdio',
    flavour: 'ndjson',
    load: true,
    validates: false,
    listing: 'floor',
  },
  { id: 'floor/unix', impl: 'floor', transport: 'unix', flavour: 'ndjson', load: true, validates: false },
  {
    id: 'floor/stdio-modern',
    impl: 'floor',
    transport: 'stdio',
    flavour: 'ndjson-modern',
    load: true,
    validates: false,
  },
  {
    id: 'floor/unix-modern',
    impl: 'floor',
    transport: 'unix',
    flavour: 'ndjson-modern',
    load: true,
    validates: false,
  },
  {
    id: 'floor/http',
    impl: 'floor',
    transport: 'http',
    flavour: 'http-session',
    load: true,
    validates: false,
  },
];

export const COMPARISONS: readonly Comparison[] = [
  {
    ours: 'agentd/stdio',
    label: 'stdio',
    floor: 'floor/stdio',
    sdks: ['sdk-v1/stdio', 'sdk-v2/stdio'],
    floorTarget: 0.7,
    sequentialTarget: 0.9,
    rssTarget: true,
  },
  // The SDKs ship no socket server; their stdio is what a user would run instead.
  {
    ours: 'agentd/unix',
    label: 'unix socket',
    floor: 'floor/unix',
    sdks: ['sdk-v1/stdio', 'sdk-v2/stdio'],
    floorTarget: 0.7,
    sequentialTarget: 0.9,
    rssTarget: true,
  },
  {
    ours: 'agentd/stdio-modern',
    label: 'stdio 2026-07-28',
    floor: 'floor/stdio-modern',
    sdks: ['sdk-v1/stdio', 'sdk-v2/stdio'],
    floorTarget: 0.7,
    sequentialTarget: 0.9,
    rssTarget: true,
  },
  {
    ours: 'agentd/unix-modern',
    label: 'unix socket 2026-07-28',
    floor: 'floor/unix-modern',
    sdks: ['sdk-v1/stdio', 'sdk-v2/stdio'],
    floorTarget: 0.7,
    sequentialTarget: 0.9,
    rssTarget: true,
  },
  {
    ours: 'agentd/http-modern',
    label: 'HTTP modern stateless',
    floor: 'floor/http',
    sdks: ['sdk-v1/http-stateless', 'sdk-v2/http-stateless'],
    floorTarget: 0.6,
  },
  {
    ours: 'agentd/http-legacy',
    label: 'HTTP legacy session',
    floor: 'floor/http',
    sdks: ['sdk-v1/http-session', 'sdk-v2/http-session'],
    floorTarget: 0.5,
  },
  // The same stack through createFetchHandler on Node; the target is ≥ 0.8× agentd/http-modern.
  {
    ours: 'agentd-fetch/http-modern',
    label: 'HTTP modern stateless, fetch handler on Node',
    floor: 'floor/http',
    sdks: ['sdk-v1/http-stateless', 'sdk-v2/http-stateless'],
    floorTarget: 0.5,
  },
  {
    ours: 'agentd-bun/http-modern',
    label: 'HTTP modern stateless, fetch handler on Bun',
    floor: 'floor/http',
    sdks: ['sdk-v1/http-stateless', 'sdk-v2/http-stateless'],
    floorTarget: 0.5,
  },
  {
    ours: 'agentd-fetch/http-legacy',
    label: 'HTTP legacy session, fetch handler on Node',
    floor: 'floor/http',
    sdks: ['sdk-v1/http-session', 'sdk-v2/http-session'],
    floorTarget: 0.4,
  },
];

export const ERA_PAIRS: readonly EraPair[] = [
  {
    label: 'stdio',
    legacy: 'agentd/stdio',
    modern: 'agentd/stdio-modern',
    floorLegacy: 'floor/stdio',
    floorModern: 'floor/stdio-modern',
    target: 0.85,
  },
  {
    label: 'unix socket',
    legacy: 'agentd/unix',
    modern: 'agentd/unix-modern',
    floorLegacy: 'floor/unix',
    floorModern: 'floor/unix-modern',
    target: 0.85,
  },
];
