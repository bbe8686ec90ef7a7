import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from './parse-args.js';

describe('parseArgs', () => {
  it('starts the daemon with no arguments and collects repeatable flags', () => {
    expect(parseArgs([])).toMatchObject({ kind: 'serve', stdio: false });
    const command = parseArgs([
      '--serve',
      'unix:/a',
      '--serve=http://127.0.0.1:0',
      '--no-watch',
      '--config',
      'x.json',
    ]);
    expect(command).toMatchObject({ kind: 'serve', configPath: 'x.json' });
    if (command.kind !== 'serve') throw new Error('unreachable');
    expect(command.flags.get('--serve')).toEqual(['unix:/a', 'http://127.0.0.1:0']);
    expect(command.flags.get('--watch')).toEqual(['false']);
  });

  it('parses the client commands', () => {
    expect(parseArgs(['call', '--socket', '/s', 'tools/list', '{}'])).toEqual({
      kind: 'call',
      socket: '/s',
      method: 'tools/list',
      params: '{}',
    });
    expect(parseArgs(['spawn', '--async', '--agent', 'shell', 'do it'])).toEqual({
      kind: 'spawn',
      instruction: 'do it',
      agent: 'shell',
      async: true,
    });
    expect(parseArgs(['config', 'check', 'f.json'])).toEqual({ kind: 'config-check', file: 'f.json' });
    expect(parseArgs(['stdio'])).toMatchObject({ kind: 'serve', stdio: true });
  });

  it('refuses unknown options, missing values and stray arguments', () => {
    expect(() => parseArgs(['--serv', 'x'])).toThrow(UsageError);
    expect(() => parseArgs(['--serve'])).toThrow(/needs a value/);
    expect(() => parseArgs(['call'])).toThrow(/usage/);
    expect(() => parseArgs(['frobnicate'])).toThrow(/unknown command/);
    expect(() => parseArgs(['--bearer-token', 'secret'])).toThrow(/unknown option/);
  });
});
