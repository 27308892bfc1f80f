#!/usr/bin/env node
// One stage of an export, alone, for test/bench/run.mjs and pace.mjs: every page of a
// list fetched 4 at a time over kept-alive connections (as payrec does), then
//   bytes: the body read and dropped;  text: decoded to a string;  parse: JSON.parse'd;
//   rows: parsed, and each record written to FILE as a CSV line in page order (every
//   field as sent, quoted when it holds a quote, comma or line break): the least any
//   exporter does, with none of payrec's checks, time formats or formula guard.
// What payrec's export costs beyond `parse` is its own work (paging, checks,
// formatting, writing). Usage: stages.mjs STAGE URL TO TOTAL KEY [FILE]

import { closeSync, openSync, writeSync } from 'node:fs';
import { Agent } from 'undici';

const [stage, url, to, total, key, file] = process.argv.slice(2);
const PAGE = 1000;
const { origin, pathname } = new URL(url);
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 4 });
let next = 0;
let records = 0;

async function worker() {
  while (next < Number(total)) {
    const offset = next;
    next += PAGE;
    const res = await agent.request({ origin, path: `${pathname}?limit=${PAGE}&offset=${offset}&to=${to}`, method: 'GET', headers: { authorization: `Bearer ${key}` } });
    if (stage === 'bytes') for await (const chunk of res.body) void chunk;
    else if (stage === 'text') await res.body.text();
    else {
      // Parsed before adding: `records += await …` would read `records` before the await and lose the other workers' counts.
      const page = JSON.parse(await res.body.text());
      records += page.data.length;
      if (stage === 'rows') rows(offset / PAGE, page.data);
    }
  }
}

// rows: each page's lines, written when every page before it has been.
const out = stage === 'rows' ? openSync(file, 'w') : undefined;
const ready = new Map();
let written = 0;
let columns;
const QUOTED = /[",\r\n]/;
const cell = (v) => {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return QUOTED.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
function rows(index, data) {
  columns ??= Object.keys(data[0] ?? {});
  let text = '';
  for (const r of data) text += columns.map((c) => cell(r[c])).join(',') + '\n';
  ready.set(index, text);
  for (let t; (t = ready.get(written)) !== undefined; written++) {
    ready.delete(written);
    writeSync(out, t);
  }
}

await Promise.all([worker(), worker(), worker(), worker()]);
await agent.close();
if (out !== undefined) closeSync(out);
if ((stage === 'parse' || stage === 'rows') && records !== Number(total)) throw new Error(`parsed ${records} of ${total} records`);
if (stage === 'rows' && ready.size > 0) throw new Error(`${ready.size} pages were never written`);
