/** Identifiers: unguessable handles (capabilities) and run ids (names, time-ordered; they authorize nothing). */
import { randomBytes } from 'node:crypto';

/** 128 random bits: a handle is the only credential needed to steer or cancel a run. */
export function newHandle(): string {
  return `sa_${randomBytes(16).toString('base64url')}`;
}

/** Sortable by start time, random tail so that run ids reveal nothing about other runs. */
export function newRunId(now = Date.now()): string {
  return `run_${now.toString(36)}_${randomBytes(6).toString('hex')}`;
}
