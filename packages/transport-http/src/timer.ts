/** Timers that never keep a process alive, on every runtime (Node/Bun objects, Deno/Workers numbers). */
export type Timer = ReturnType<typeof setInterval>;

function unref(timer: Timer): Timer {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

export function startInterval(callback: () => void, ms: number): Timer {
  return unref(setInterval(callback, ms));
}

export function startTimeout(callback: () => void, ms: number): Timer {
  return unref(setTimeout(callback, ms));
}

/** Either kind: clearInterval and clearTimeout share one id space on every runtime. */
export function stopTimer(timer: Timer | undefined): void {
  if (timer !== undefined) clearInterval(timer);
}
