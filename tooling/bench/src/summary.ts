/** Folds the repetitions of every case into medians (the numbers the report and the JSON output show). */
import type { CaseRep, ListingResult } from './measure-case.js';
import { median, spread } from './stats.js';

export interface CaseSummary {
  readonly id: string;
  readonly reps: number;
  readonly verifiedAnswers: number;
  readonly coldMs: number;
  readonly coldMinMs: number;
  readonly coldMaxMs: number;
  readonly coldSamples: number;
  readonly seqRps: number;
  readonly seqP50Ms: number;
  readonly seqP99Ms: number;
  readonly rps32: number;
  readonly rps32Spread: number;
  readonly p50Ms32: number;
  readonly p99Ms32: number;
  readonly cpuUsPerCall: number;
  readonly peakRssMb: number;
  readonly listing?: ListingResult;
}

export function summarise(id: string, reps: readonly CaseRep[], extraCold: readonly number[]): CaseSummary {
  const cold = [...reps.map((r) => r.coldMs), ...extraCold];
  const pick = (f: (r: CaseRep) => number | undefined) => reps.map((r) => f(r) ?? Number.NaN);
  const rps32 = pick((r) => r.concurrent?.callsPerSecond);
  const listing = reps.find((r) => r.listing !== undefined)?.listing;
  return {
    id,
    reps: reps.length,
    verifiedAnswers: reps.reduce((sum, r) => sum + r.verified, 0),
    coldMs: median(cold),
    coldMinMs: Math.min(...cold),
    coldMaxMs: Math.max(...cold),
    coldSamples: cold.length,
    seqRps: median(pick((r) => r.sequential?.callsPerSecond)),
    seqP50Ms: median(pick((r) => r.sequential?.p50Ms)),
    seqP99Ms: median(pick((r) => r.sequential?.p99Ms)),
    rps32: median(rps32),
    rps32Spread: spread(rps32),
    p50Ms32: median(pick((r) => r.concurrent?.p50Ms)),
    p99Ms32: median(pick((r) => r.concurrent?.p99Ms)),
    cpuUsPerCall: median(pick((r) => r.cpuUsPerCall)),
    peakRssMb: median(pick((r) => r.peakRssMb)),
    ...(listing && {
      listing: { ...listing, p50Ms: median(reps.map((r) => r.listing?.p50Ms ?? Number.NaN)) },
    }),
  };
}
