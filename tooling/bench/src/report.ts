/** Renders the summaries as Markdown tables: absolute figures, ratios against floors and SDKs, and the targets. */
import { COLD_START_TARGET, COMPARISONS, ERA_PAIRS, FETCH_PAIR, PEAK_RSS_TARGET } from './cases.js';
import type { CaseSummary } from './summary.js';

const num = (v: number, digits = 0): string =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '–';
const ms = (v: number): string => (Number.isFinite(v) ? (v < 10 ? v.toFixed(3) : v.toFixed(1)) : '–');
const ratio = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(2)}x` : '–');
const pct = (v: number): string => (Number.isFinite(v) ? `${(v * 100).toFixed(0)}%` : '–');

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const align = header.map((_, i) => (i === 0 ? '---' : '--:'));
  return [header, align, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

function absoluteTable(cases: readonly CaseSummary[]): string {
  return table(
    [
      'case',
      'cold start ms (min–max)',
      '1 in flight calls/s',
      'p50 / p99 ms',
      '32 in flight calls/s (spread)',
      'p50 / p99 ms',
      'server CPU µs/call (32)',
      'peak RSS MB',
    ],
    cases.map((c) => [
      c.id,
      `${num(c.coldMs)} (${num(c.coldMinMs)}–${num(c.coldMaxMs)})`,
      num(c.seqRps),
      `${ms(c.seqP50Ms)} / ${ms(c.seqP99Ms)}`,
      `${num(c.rps32)} (±${pct(c.rps32Spread / 2)})`,
      `${ms(c.p50Ms32)} / ${ms(c.p99Ms32)}`,
      num(c.cpuUsPerCall, 1),
      num(c.peakRssMb),
    ]),
  );
}

export interface TargetCheck {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

function comparisonTable(byId: ReadonlyMap<string, CaseSummary>, checks: TargetCheck[]): string {
  const rows: string[][] = [];
  for (const cmp of COMPARISONS) {
    const ours = byId.get(cmp.ours);
    const floor = byId.get(cmp.floor);
    if (ours === undefined || floor === undefined) continue;
    const sdks = cmp.sdks.map((id) => byId.get(id)).filter((s): s is CaseSummary => s !== undefined);
    const ofFloor = ours.rps32 / floor.rps32;
    const seqOfFloor = ours.seqRps / floor.seqRps;
    const p50VsFloor = ours.seqP50Ms / floor.seqP50Ms;
    const coldVsFloor = ours.coldMs / floor.coldMs;
    const rssVsFloor = ours.peakRssMb / floor.peakRssMb;
    checks.push({
      target: `${cmp.label}: 32 in flight ≥ ${pct(cmp.floorTarget)} of the floor`,
      measured: pct(ofFloor),
      met: ofFloor >= cmp.floorTarget,
    });
    if (cmp.sequentialTarget !== undefined) {
      checks.push({
        target: `${cmp.label}: 1 in flight ≥ ${pct(cmp.sequentialTarget)} of the floor`,
        measured: pct(seqOfFloor),
        met: seqOfFloor >= cmp.sequentialTarget,
      });
    }
    checks.push({
      target: `${cmp.label}: cold start ≤ ${COLD_START_TARGET}x the floor's`,
      measured: ratio(coldVsFloor),
      met: coldVsFloor <= COLD_START_TARGET,
    });
    if (cmp.rssTarget === true) {
      checks.push({
        target: `${cmp.label}: peak RSS ≤ ${PEAK_RSS_TARGET}x the floor's`,
        measured: ratio(rssVsFloor),
        met: rssVsFloor <= PEAK_RSS_TARGET,
      });
    }
    for (const sdk of sdks) {
      checks.push({
        target: `${cmp.label}: ahead of ${sdk.id} at 32 and 1 in flight, and in cold start`,
        measured: `${ratio(ours.rps32 / sdk.rps32)} / ${ratio(ours.seqRps / sdk.seqRps)} / ${ratio(ours.coldMs / sdk.coldMs)}`,
        met: ours.rps32 > sdk.rps32 && ours.seqRps > sdk.seqRps && ours.coldMs < sdk.coldMs,
      });
    }
    const vs = (f: (s: CaseSummary) => number, mine: number) =>
      sdks.map((s) => `${ratio(mine / f(s))} ${s.id.split('/')[0]}`).join(', ');
    rows.push([
      cmp.label,
      `${pct(ofFloor)} (target ${pct(cmp.floorTarget)})`,
      vs((s) => s.rps32, ours.rps32),
      pct(seqOfFloor),
      ratio(p50VsFloor),
      vs((s) => s.seqP50Ms, ours.seqP50Ms),
      ratio(coldVsFloor),
      vs((s) => s.coldMs, ours.coldMs),
      ratio(rssVsFloor),
      vs((s) => s.peakRssMb, ours.peakRssMb),
      ratio(ours.cpuUsPerCall / floor.cpuUsPerCall),
    ]);
  }
  return table(
    [
      'agentd on',
      '32 in flight vs floor',
      '32 in flight vs SDK (higher is better)',
      '1 in flight vs floor',
      'seq p50 vs floor',
      'seq p50 vs SDK (lower is better)',
      'cold start vs floor',
      'cold start vs SDK',
      'peak RSS vs floor',
      'peak RSS vs SDK',
      'CPU/call vs floor',
    ],
    rows,
  );
}

/** 2026-07-28 against legacy on the same transport, with the floor's own ratio for reference. */
function eraTable(byId: ReadonlyMap<string, CaseSummary>, checks: TargetCheck[]): string {
  const rows: string[][] = [];
  for (const pair of ERA_PAIRS) {
    const [legacy, modern, floorLegacy, floorModern] = [
      pair.legacy,
      pair.modern,
      pair.floorLegacy,
      pair.floorModern,
    ].map((id) => byId.get(id));
    if (!legacy || !modern) continue;
    const kept = modern.rps32 / legacy.rps32;
    const floorKept = floorLegacy && floorModern ? floorModern.rps32 / floorLegacy.rps32 : Number.NaN;
    checks.push({
      target: `${pair.label}: 2026-07-28 keeps ≥ ${pct(pair.target)} of legacy's throughput (32 in flight)`,
      measured: `${pct(kept)} (floor: ${pct(floorKept)})`,
      met: kept >= pair.target,
    });
    rows.push([
      pair.label,
      pct(kept),
      pct(floorKept),
      ratio(modern.cpuUsPerCall / legacy.cpuUsPerCall),
      floorLegacy && floorModern ? ratio(floorModern.cpuUsPerCall / floorLegacy.cpuUsPerCall) : '–',
      pct(modern.seqRps / legacy.seqRps),
    ]);
  }
  return table(
    [
      '2026-07-28 vs legacy',
      'agentd 32 in flight',
      'floor 32 in flight',
      'agentd CPU/call',
      'floor CPU/call',
      'agentd 1 in flight',
    ],
    rows,
  );
}

function fetchCheck(byId: ReadonlyMap<string, CaseSummary>, checks: TargetCheck[]): void {
  const fetch = byId.get(FETCH_PAIR.fetch);
  const node = byId.get(FETCH_PAIR.node);
  if (!fetch || !node) return;
  const share = fetch.rps32 / node.rps32;
  checks.push({
    target: `fetch handler on Node ≥ ${pct(FETCH_PAIR.target)} of serveHttp (stateless, 32 in flight)`,
    measured: pct(share),
    met: share >= FETCH_PAIR.target,
  });
}

function listingTable(cases: readonly CaseSummary[], checks: TargetCheck[]): string {
  const listed = cases.filter((c) => c.listing !== undefined);
  const classic = listed.find((c) => c.id === 'agentd/stdio')?.listing;
  const codeMode = listed.find((c) => c.id === 'agentd-codemode/stdio')?.listing;
  if (classic !== undefined && codeMode !== undefined) {
    const share = codeMode.bytes / classic.bytes;
    checks.push({
      target: 'Code Mode tools/list ≤ 5% of classic tokens',
      measured: pct(share),
      met: share <= 0.05,
    });
  }
  return table(
    [
      'tools/list (320 operations)',
      'tools',
      'pages',
      'tools JSON bytes',
      '≈tokens (bytes/4)',
      'vs agentd classic',
      'all pages p50 ms',
    ],
    listed.map((c) => {
      const l = c.listing as NonNullable<CaseSummary['listing']>;
      return [
        c.id,
        num(l.tools),
        num(l.pages),
        num(l.bytes),
        num(l.bytes / 4),
        classic === undefined ? '–' : pct(l.bytes / classic.bytes),
        ms(l.p50Ms),
      ];
    }),
  );
}

export function renderReport(
  cases: readonly CaseSummary[],
  skipped: readonly { id: string; reason: string }[],
): { text: string; checks: TargetCheck[] } {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const checks: TargetCheck[] = [];
  const comparisons = comparisonTable(byId, checks);
  const eras = eraTable(byId, checks);
  fetchCheck(byId, checks);
  const parts = [
    '### Absolute figures (medians of the repetitions)',
    absoluteTable(cases),
    '### Ratios (same run)',
    comparisons,
    '### The 2026-07-28 era against the legacy era (same run)',
    eras,
    '### tools/list size',
    listingTable(cases, checks),
    '### Targets',
    table(
      ['target', 'measured', ''],
      checks.map((c) => [c.target, c.measured, c.met ? 'met' : '**missed**']),
    ),
  ];
  if (skipped.length > 0) parts.push(`Skipped: ${skipped.map((s) => `${s.id} (${s.reason})`).join('; ')}`);
  return { text: parts.join('\n\n'), checks };
}
