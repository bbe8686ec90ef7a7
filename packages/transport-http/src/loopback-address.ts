/** Whether a bind address only listens on this machine (no auth needed there). */
export function isLoopbackAddress(address: string): boolean {
  const name = address.toLowerCase();
  return (
    name === '::1' ||
    name === 'localhost' ||
    /^127(?:\.\d{1,3}){3}$/.test(name) ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(name)
  );
}
