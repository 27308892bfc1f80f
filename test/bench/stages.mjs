#!/usr/bin/env node
// One stage of an export, alone, for test/bench/run.mjs: every page of a list fetched
// 4 at a time over kept-alive connections (as payrec does), then
//   bytes: the body read and dropped;  text: decoded to a string;  parse: JSON.parse'd.
// What payrec's export costs beyond the last stage is its own work (paging, checks,
// formatting, writing). Usage: stages.mjs STAGE URL TO TOTAL KEY

import { Agent } from 'undici';

const [stage, url, to, total, key] = process.argv.slice(2);
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
    }
  }
}

await Promise.all([worker(), worker(), worker(), worker()]);
await agent.close();
if (stage === 'parse' && records !== Number(total)) throw new Error(`parsed ${records} of ${total} records`);
