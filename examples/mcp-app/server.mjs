#!/usr/bin/env node
/**
 * An MCP server with one MCP App and one skill, in both protocol eras. NDJSON over stdio by
 * default; `--http <port>` serves Streamable HTTP on 127.0.0.1 instead (port 0: any free one)
 * and prints `listening <url>` on stdout once it accepts requests.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { http, McpServer, stdio, ToolResult } from '@agentd/dispatch';
import { stderrLogger } from '@agentd/server';
import { serveSkillsFolder } from '@agentd/skills/node';

const here = dirname(fileURLToPath(import.meta.url));
const VIEW = 'ui://forecast/view.html';
const SKIES = ['clear', 'cloudy', 'rain', 'snow'];

/** A made-up, deterministic forecast: the same city always gets the same days. */
function forecast(city) {
  let seed = [...city].reduce((sum, ch) => sum + ch.charCodeAt(0), 0);
  const days = ['today', 'tomorrow', 'day after'].map((day) => {
    seed = (seed * 31 + 7) % 997;
    return { day, celsius: (seed % 30) - 5, sky: SKIES[seed % SKIES.length] };
  });
  return { city, days, updated: new Date().toISOString() };
}

/** Text for every host (hosts without MCP Apps only show this); the view renders structuredContent. */
function forecastResult(city) {
  const data = forecast(city);
  const text = `Forecast for ${city}: ${data.days.map((d) => `${d.day} ${d.celsius} °C ${d.sky}`).join('; ')}`;
  return new ToolResult({ content: [{ type: 'text', text }], structuredContent: data });
}

const CITY = {
  type: 'object',
  properties: { city: { type: 'string', minLength: 1 } },
  required: ['city'],
  additionalProperties: false,
};

export async function createForecastServer() {
  const server = new McpServer(
    { name: 'forecast-app', version: '1.0.0' },
    { logger: stderrLogger({ level: 'warn' }) },
  );
  server.registerAppResource(
    'forecast_view',
    VIEW,
    {
      title: 'Forecast',
      description: 'Three-day forecast view',
      ui: { prefersBorder: true },
      cache: { ttlMs: 3_600_000 },
    },
    readFileSync(join(here, 'app', 'forecast.html'), 'utf8'),
  );
  server.registerAppTool(
    'show_forecast',
    {
      title: 'Show forecast',
      description:
        'Three-day weather forecast for a city, shown in the forecast view where the host renders MCP Apps',
      inputSchema: CITY,
      ui: { resourceUri: VIEW },
    },
    (args) => forecastResult(args.city),
  );
  server.registerAppTool(
    'refresh_forecast',
    {
      description: "Refreshes the forecast view's data (called by the view, never by the model)",
      inputSchema: CITY,
      ui: { resourceUri: VIEW, visibility: ['app'] },
    },
    (args) => forecastResult(args.city),
  );
  // One call wires the skill folder: every skills/<name>/SKILL.md becomes a skill:// resource.
  await serveSkillsFolder(server, join(here, 'skills'));
  return server;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { http: { type: 'string' } } });
  const server = await createForecastServer();
  if (values.http === undefined) {
    const served = await server.connect(stdio());
    await served.closed;
    await server.close();
  } else {
    const served = await server.connect(http({ port: Number(values.http) }));
    console.log(`listening ${served.url}`);
    const stop = async () => {
      await server.close(2_000);
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
}
