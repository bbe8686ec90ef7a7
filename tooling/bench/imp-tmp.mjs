const t0 = performance.now();
const spec = process.argv[2];
await import(spec);
console.log(spec, (performance.now() - t0).toFixed(1), 'ms');
