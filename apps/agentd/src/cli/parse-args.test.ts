import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from './parse-args.js';
import { CLIENT_SPECS } from './usage.js';

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
    expect(command.flags.has('--config')).toBe(false);
  });

  it('parses the client commands with their connection', () => {
    expect(parseArgs(['call', '--socket', '/s', 'tools/list', '{}'])).toEqual({
      kind: 'client',
      command: {
        kind: 'call',
        method: 'tools/list',
        params: '{}',
        connection: { socket: '/s' },
        json: false,
      },
    });
    expect(parseArgs(['spawn', '--async', '--agent', 'shell', 'do it'])).toEqual({
      kind: 'client',
      command: {
        kind: 'spawn',
        instruction: 'do it',
        agent: 'shell',
        async: true,
        warm: false,
        connection: {},
        json: false,
      },
    });
    expect(
      parseArgs([
        'wait',
        'sa_x',
        '--timeout-ms',
        '50',
        '--url',
        'http://h:1/mcp',
        '--token-file',
        't',
        '--json',
      ]),
    ).toEqual({
      kind: 'client',
      command: {
        kind: 'wait',
        handle: 'sa_x',
        timeoutMs: 50,
        connection: { url: 'http://h:1/mcp', tokenFile: 't' },
        json: true,
      },
    });
    expect(parseArgs(['cancel', '--all', '--config', 'c.json'])).toMatchObject({
      command: { kind: 'cancel', all: true, connection: { configPath: 'c.json' } },
    });
    expect(parseArgs(['send', 'sa_x', '-'])).toMatchObject({
      command: { kind: 'send', handle: 'sa_x', message: '-' },
    });
    expect(parseArgs(['events', '--follow', '--level', 'warn'])).toMatchObject({
      command: { kind: 'events', follow: true, level: 'warning' },
    });
    expect(parseArgs(['events', '--level', 'notice'])).toMatchObject({
      command: { kind: 'events', level: 'notice' },
    });
    expect(parseArgs(['lame-duck', '--ready'])).toMatchObject({
      command: { kind: 'lame-duck', ready: true },
    });
    expect(parseArgs(['drain', '--deadline-ms', '0'])).toMatchObject({
      command: { kind: 'drain', deadlineMs: 0 },
    });
    expect(parseArgs(['status', 'sa_x'])).toMatchObject({ command: { kind: 'status', handle: 'sa_x' } });
    expect(parseArgs(['config', 'check', 'f.json'])).toEqual({ kind: 'config-check', file: 'f.json' });
    expect(parseArgs(['stdio'])).toMatchObject({ kind: 'serve', stdio: true });
  });

  it('answers --help for every command, instead of treating it as an argument', () => {
    for (const name of [...Object.keys(CLIENT_SPECS), 'serve', 'stdio', 'config']) {
      const help = parseArgs([name, '--help']);
      expect(help.kind, name).toBe('help');
      if (help.kind === 'help') expect(help.text).toContain('Usage');
    }
    expect(parseArgs(['config', 'check', '--help'])).toMatchObject({ kind: 'help' });
    expect(parseArgs(['spawn', '-h'])).toMatchObject({ kind: 'help' });
    expect(parseArgs(['help', 'wait'])).toMatchObject({
      kind: 'help',
      text: expect.stringContaining('wait RUN'),
    });
    // After `--`, --help is the instruction itself.
    expect(parseArgs(['spawn', '--', '--help'])).toMatchObject({ command: { instruction: '--help' } });
  });

  it('parses attach (a handle or a run id, with --timeout-ms) and ui', () => {
    expect(parseArgs(['attach', 'run_abc', '--timeout-ms', '500', '--json'])).toMatchObject({
      kind: 'client',
      command: { kind: 'attach', handle: 'run_abc', timeoutMs: 500, json: true },
    });
    expect(parseArgs(['ui', '--url', 'http://127.0.0.1:9/mcp'])).toMatchObject({
      command: { kind: 'ui', connection: { url: 'http://127.0.0.1:9/mcp' } },
    });
  });

  it('refuses unknown options, missing values and stray arguments', () => {
    expect(() => parseArgs(['--serv', 'x'])).toThrow(UsageError);
    expect(() => parseArgs(['--serve'])).toThrow(/needs a value/);
    expect(() => parseArgs(['call'])).toThrow(/usage/);
    expect(() => parseArgs(['frobnicate'])).toThrow(/unknown command/);
    expect(() => parseArgs(['--bearer-token', 'secret'])).toThrow(/unknown option/);
    expect(() => parseArgs(['cancel'])).toThrow(/cancel RUN/);
    expect(() => parseArgs(['cancel', 'sa_x', '--all'])).toThrow(/cancel RUN/);
    expect(() => parseArgs(['attach'])).toThrow(/attach RUN/);
    expect(() => parseArgs(['ui', 'extra'])).toThrow(/usage: agentd ui/);
    expect(() => parseArgs(['wait', 'sa_x', '--timeout-ms', 'soon'])).toThrow(/integer/);
    expect(() => parseArgs(['events', '--level', 'loud'])).toThrow(/--level/);
    expect(() => parseArgs(['status', '--socket', '/s', '--url', 'http://x:1'])).toThrow(/alternatives/);
    expect(() => parseArgs(['spawn', '--async', '--warm', 'x'])).toThrow(/alternatives/);
  });
  it('takes the global options before the command as well as after it', () => {
    expect(parseArgs(['--config', 'agentd.json', 'spawn', 'fix it'])).toMatchObject({
      kind: 'client',
      command: { kind: 'spawn', instruction: 'fix it', connection: { configPath: 'agentd.json' } },
    });
    expect(parseArgs(['--json', '--socket=/s', 'status', 'run_1'])).toMatchObject({
      command: { kind: 'status', handle: 'run_1', json: true, connection: { socket: '/s' } },
    });
    // A `--` after the command still ends its options; globals in front are not swept past it.
    expect(parseArgs(['--url', 'http://127.0.0.1:9/mcp', 'spawn', '--', '--json'])).toMatchObject({
      command: { instruction: '--json', json: false, connection: { url: 'http://127.0.0.1:9/mcp' } },
    });
    expect(parseArgs(['--config', 'x.json', 'stdio'])).toMatchObject({
      kind: 'serve',
      stdio: true,
      configPath: 'x.json',
    });
    // Without a command after them they are the daemon's own flags, as before.
    expect(parseArgs(['--config', 'x.json', '--serve', 'unix:/a'])).toMatchObject({
      kind: 'serve',
      configPath: 'x.json',
    });
    expect(parseArgs(['--config', 'x.json', 'version'])).toEqual({ kind: 'version' });
    expect(() => parseArgs(['--config', 'x.json', 'spwan', 'x'])).toThrow(/unknown command 'spwan'/);
    expect(() => parseArgs(['--socket', '/s', 'stdio'])).toThrow(/unknown option --socket/);
  });
});
