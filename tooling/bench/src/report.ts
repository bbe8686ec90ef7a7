/** Renders the summaries as Markdown tables: absolute figures, ratios against floors and SDKs, and the targets. */
import { COMPARISONS } from './cases.js';
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
      num(c.cpuUsPerCall),
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
    const p50VsFloor = ours.seqP50Ms / floor.seqP50Ms;
    checks.push({
      target: `${cmp.label}: 32 in flight ≥ ${pct(cmp.floorTarget)} of the floor`,
      measured: pct(ofFloor),
      met: ofFloor >= cmp.floorTarget,
    });
    checks.push({
      target: `${cmp.label}: sequential p50 ≤ 1.5x the floor's`,
      // Three decimals: 1.503 must not read as a "1.50x" that missed 1.5.
      measured: `${p50VsFloor.toFixed(3)}x`,
      met: p50VsFloor <= 1.5,
    });
    for (const sdk of sdks) {
      const name = sdk.id.split('/')[0];
      checks.push({
        target: `${cmp.label}: sequential p50 below ${sdk.id}`,
        measured: `${ms(ours.seqP50Ms)} vs ${ms(sdk.seqP50Ms)} ms`,
        met: ours.seqP50Ms < sdk.seqP50Ms,
      });
      checks.push({
        target: `${cmp.label}: cold start ≤ half of ${name}'s`,
        measured: ratio(ours.coldMs / sdk.coldMs),
        met: ours.coldMs <= sdk.coldMs / 2,
      });
      checks.push({
        target: `${cmp.label}: peak RSS ≤ half of ${name}'s`,
        measured: ratio(ours.peakRssMb / sdk.peakRssMb),
        met: ours.peakRssMb <= sdk.peakRssMb / 2,
      });
    }
    const vs = (f: (s: CaseSummary) => number, mine: number) =>
      sdks.map((s) => `${ratio(mine / f(s))} ${s.id.split('/')[0]}`).join(', ');
    rows.push([
      cmp.label,
      `${pct(ofFloor)} (target ${pct(cmp.floorTarget)})`,
      vs((s) => s.rps32, ours.rps32),
      ratio(p50VsFloor),
      vs((s) => s.seqP50Ms, ours.seqP50Ms),
      vs((s) => s.coldMs, ours.coldMs),
      vs((s) => s.peakRssMb, ours.peakRssMb),
      ratio(ours.cpuUsPerCall / floor.cpuUsPerCall),
    ]);
  }
  return table(
    [
      'agentd on',
      '32 in flight vs floor',
      '32 in flight vs SDK (higher is better)',
      'seq p50 vs floor',
      'seq p50 vs SDK (lower is better)',
      'cold start vs SDK',
      'peak RSS vs SDK',
      'CPU/call vs floor',
    ],
    rows,
  );
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
  const parts = [
    '### Absolute figures (medians of the repetitions)',
    absoluteTable(cases),
    '### Ratios (same run)',
    comparisonTable(byId, checks),
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
