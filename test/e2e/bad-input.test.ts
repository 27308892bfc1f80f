import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { emulator, payrec, payrecInProcess } from './helpers.js';

// A corpus of invalid invocations (errors.test.ts has the first twenty). Each one
// exits 2 with a message that names the bad value and what is expected, and sends
// nothing: the emulator's request log stays empty.

let emu: Emulator;
beforeAll(async () => (emu = await emulator()));
afterAll(async () => {
  expect(emu.requests).toEqual([]);
  await emu.close();
});

const PLAN = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
const hex = (n: number) => 'a'.repeat(n);
const long = (c: string, n: number) => c.repeat(n);
/** The message part that quotes a value: `"<first 80 characters>… (N characters)"`. */
const cut = (v: string) => `"${v.slice(0, 80)}… \\(${v.length} characters\\)"`;

const HEX = 'expected 0x followed by 64 hex characters';
const ADDRESS = 'expected a wallet address: 0x followed by 40 hex characters';
const UUID = 'expected a UUID such as';
const TIME = 'expected Unix seconds, an ISO 8601 date';
const URL_ = 'expected an http:// or https:// URL';
const CODE = 'expected a short url code \\(letters, digits, _ and -\\)';
const CHAIN = 'expected a lower-case chain name';
const CONTROL = 'expected no control characters \\(newlines, escapes, bidi overrides\\)';

type Case = [name: string, args: string[], message: RegExp, env?: Record<string, string>];

const cases: Case[] = [
  // hex ids, addresses, UUIDs
  ['plan id of 63 hex', ['fr', 'billings', '--plan-id', `0x${hex(63)}`], new RegExp(`invalid --plan-id "0x${hex(63)}": ${HEX}`)],
  ['plan id of 65 hex', ['fr', 'billings', '--plan-id', `0x${hex(65)}`], new RegExp(`invalid --plan-id "0x${hex(65)}": ${HEX}`)],
  ['plan id without 0x', ['fr', 'cancellations', '--plan-id', hex(64)], new RegExp(`invalid --plan-id "${hex(64)}": ${HEX}`)],
  ['plan id with a trailing space', ['vr', 'cancellation-requests', '--plan-id', `${PLAN} `], new RegExp(`invalid --plan-id "${PLAN} ": ${HEX}`)],
  ['empty plan id', ['od', 'transfers', '--plan-id', ''], new RegExp(`invalid --plan-id "": ${HEX}`)],
  ['subscription id with a z', ['vr', 'cancellation', `0x${hex(63)}z`], new RegExp(`invalid <subscription-id> "0x${hex(63)}z": ${HEX}`)],
  ['schedule id', ['sp', 'transfers', '--schedule-id', 'zz'], new RegExp(`invalid --schedule-id "zz": ${HEX}`)],
  ['strategy id', ['dca', 'executions', '--strategy-id', '0x12'], new RegExp(`invalid --strategy-id "0x12": ${HEX}`)],
  ['transaction hash', ['ot', 'payments', 'list', '--transaction-hash', '0x12'], new RegExp(`invalid --transaction-hash "0x12": ${HEX}`)],
  ['notification id with 0x', ['wn', 'get', `0x${hex(64)}`], new RegExp(`invalid <notification-id> "0x${hex(64)}": expected 64 hex characters \\(no 0x\\)`)],
  ['short notification id', ['wn', 'get', 'abc'], /invalid <notification-id> "abc": expected 64 hex characters/],
  ['address of 39 hex', ['ot', 'transfers', '--sender', `0x${hex(39)}`], new RegExp(`invalid --sender "0x${hex(39)}": ${ADDRESS}`)],
  ['address with non-hex', ['vr', 'transfers', '--receiver', `0xZZ${hex(38)}`], new RegExp(`invalid --receiver "0xZZ${hex(38)}": ${ADDRESS}`)],
  ['ENS name for an address', ['fr', 'cancellations', '--plan-id', PLAN, '--triggered-by', 'vitalik.eth'], new RegExp(`invalid --triggered-by "vitalik.eth": ${ADDRESS}`)],
  ['UUID one digit short', ['w2w', 'payments', 'get', '123e4567-e89b-12d3-a456-42661417400'], new RegExp(`invalid <id> "123e4567-e89b-12d3-a456-42661417400": ${UUID}`)],
  ['UUID without dashes', ['w2w', 'payments', 'get', '123e4567e89b12d3a456426614174000'], new RegExp(`invalid <id> "123e4567e89b12d3a456426614174000": ${UUID}`)],
  ['UUID in braces', ['w2w', 'payments', 'get', '{123e4567-e89b-12d3-a456-426614174000}'], new RegExp(`invalid <id> "\\{123e4567-e89b-12d3-a456-426614174000\\}": ${UUID}`)],
  ['payment id that is a UUID', ['ot', 'payments', 'get', '123e4567-e89b-12d3-a456-426614174000'], new RegExp(`invalid <id> "123e4567-e89b-12d3-a456-426614174000": ${HEX}`)],

  // dates and relative ages
  ['30 February', ['ot', 'transfers', '--from', '2026-02-30'], /invalid --from "2026-02-30": there is no such calendar date; expected/],
  ['date without zero padding', ['ot', 'transfers', '--from', '2026-1-1'], new RegExp(`invalid --from "2026-1-1": ${TIME}`)],
  ['milliseconds', ['ot', 'transfers', '--from', '1767225600000'], /invalid --from "1767225600000": this looks like milliseconds; expected Unix seconds/],
  ['negative age', ['ot', 'transfers', '--from', '-5d'], new RegExp(`invalid --from "-5d": ${TIME}`)],
  ['age in years', ['ot', 'transfers', '--from', '5y'], new RegExp(`invalid --from "5y": ${TIME}`)],
  ['age with a space', ['ot', 'transfers', '--from', '7 d'], new RegExp(`invalid --from "7 d": ${TIME}`)],
  ['age reaching before 1970', ['ot', 'transfers', '--from', '999999999w'], /invalid --from "999999999w": this age reaches back before 1970/],
  ['14-digit seconds', ['ot', 'transfers', '--to', '99999999999999'], new RegExp(`invalid --to "99999999999999": too large; ${TIME}`)],
  ['hour 25', ['ot', 'transfers', '--from', '2026-01-01T25:00Z'], /invalid --from "2026-01-01T25:00Z": there is no such time of day/],
  ['zone +25:00', ['ot', 'transfers', '--from', '2026-01-01T10:00+25:00'], /invalid --from "2026-01-01T10:00\+25:00": the zone offset is out of range/],
  ['date before 1970', ['ot', 'transfers', '--to', '1969-12-31'], /invalid --to "1969-12-31": dates before 1970 are not Unix seconds/],
  ['date with a newline', ['ot', 'transfers', '--from', '2026-01-01\n'], new RegExp(`invalid --from "2026-01-01\\\\n": ${TIME}`)],

  // page sizes, limits and other numbers
  ['negative page size', ['ot', 'transfers', '--page-size', '-1'], /invalid --page-size "-1": expected a whole number from 1 to 1000/],
  ['fractional page size', ['ot', 'transfers', '--page-size', '1.5'], /invalid --page-size "1.5": expected a whole number from 1 to 1000/],
  ['hex page size', ['ot', 'transfers', '--page-size', '0x10'], /invalid --page-size "0x10": expected a whole number from 1 to 1000/],
  ['negative limit', ['ot', 'transfers', '--limit', '-5'], /invalid --limit "-5": expected a whole number of records from 1/],
  ['limit in exponent form', ['ot', 'transfers', '--limit', '1e3'], /invalid --limit "1e3": expected a whole number of records from 1/],
  ['limit too large', ['ot', 'transfers', '--limit', '99999999999'], /invalid --limit "99999999999": expected a whole number of records from 1/],
  ['limit with a space', ['ot', 'transfers', '--limit', ' 5'], /invalid --limit " 5": expected a whole number/],
  ['full-width digit limit', ['ot', 'transfers', '--limit', '５'], /invalid --limit "５": expected a whole number/],
  ['negative offset', ['ot', 'transfers', '--offset', '-1'], /invalid --offset "-1": expected a whole number from 0/],
  ['concurrency 0', ['ot', 'transfers', '--all', '--concurrency', '0'], /invalid --concurrency "0": expected a whole number from 1 to 16/],
  ['concurrency 17', ['ot', 'transfers', '--all', '--concurrency', '17'], /invalid --concurrency "17": expected a whole number from 1 to 16/],
  ['retries 11', ['ot', 'transfers', '--retries', '11'], /invalid --retries "11": expected a whole number from 0 to 10/],
  ['timeout 0', ['ot', 'transfers', '--timeout', '0'], /invalid --timeout "0": expected seconds from more than 0 to 3600/],
  ['timeout in words', ['ot', 'transfers', '--timeout', 'abc'], /invalid --timeout "abc": expected seconds, such as 30 or 2.5/],
  ['follow interval 0', ['ot', 'transfers', '--follow', '--interval', '0'], /invalid --interval "0": expected seconds from 0.1 to 86400/],
  ['chart by year', ['ot', 'transfers', '--chart', 'year'], /invalid --chart "year": expected day, week or month/],

  // formats, columns, flatten, output
  ['upper-case format', ['ot', 'transfers', '-f', 'XML'], /invalid --format "XML": expected table, json, jsonl, csv, xlsx or html/],
  ['empty format', ['ot', 'transfers', '-f', ''], /invalid --format "": expected table, json, jsonl, csv, xlsx or html/],
  ['format from the environment', ['ot', 'transfers'], /invalid PAYREC_FORMAT "yaml": expected table, json, jsonl, csv, xlsx or html/, { PAYREC_FORMAT: 'yaml' }],
  ['empty columns', ['ot', 'transfers', '--columns', ''], /invalid --columns "": expected field names separated by commas/],
  ['empty column name', ['ot', 'transfers', '--columns', 'amount,,fee'], /invalid --columns "amount,,fee": expected field names/],
  ['columns with a newline', ['ot', 'transfers', '--columns', 'amount\nfee'], /invalid --columns "amount\\nfee": expected field names/],
  ['flatten an unknown field', ['ot', 'payments', 'list', '--flatten', 'nope'], /invalid --flatten "nope": expected one of receivers/],
  ['flatten where there is no list', ['ot', 'transfers', '--flatten', 'receivers'], /invalid --flatten "receivers": these records have no list field to flatten/],
  ['flatten a nested path', ['ot', 'payments', 'list', '--flatten', 'receivers.user'], /invalid --flatten "receivers.user": expected one of receivers/],
  ['empty output path', ['ot', 'transfers', '-o', ''], /invalid --output "": expected a file path/],
  ['output path with a newline', ['ot', 'transfers', '-o', 'a\nb.csv'], /invalid --output "a\\nb.csv": expected a file path without control characters/],
  ['output in a missing directory', ['ot', 'payments', 'get', `0x${hex(64)}`, '-o', '/nonexistent/dir/x.json'], /cannot write --output "\/nonexistent\/dir\/x.json": ENOENT/],

  // URLs
  ['ftp success url', ['fr', 'short-urls', 'create', '--name', 'x', '--plan-id', PLAN, '--success-url', 'ftp://example.com/x'], new RegExp(`invalid --success-url "ftp://example.com/x": ${URL_}`)],
  ['javascript error url', ['od', 'short-urls', 'create', '--name', 'x', '--plan-id', PLAN, '--error-url', 'javascript:alert(1)'], new RegExp(`invalid --error-url "javascript:alert\\(1\\)": ${URL_}`)],
  ['url without a host', ['fr', 'short-urls', 'update', 'abc', '--success-url', 'http://'], new RegExp(`invalid --success-url "http://": ${URL_}`)],
  ['url with a newline', ['fr', 'short-urls', 'update', 'abc', '--success-url', 'https://ex\nample.com/'], new RegExp(`invalid --success-url "https://ex\\\\nample.com/": ${CONTROL}`)],
  ['oversize url', ['fr', 'short-urls', 'update', 'abc', '--error-url', `https://example.com/${long('v', 3000)}`], new RegExp(`invalid --error-url ${cut(`https://example.com/${long('v', 3000)}`)}: expected at most 2048 characters`)],
  ['javascript webhook', ['fr', 'webhook', 'set', '--plan-id', PLAN, 'javascript:alert(1)'], new RegExp(`invalid <url> "javascript:alert\\(1\\)": ${URL_}`)],
  ['file webhook', ['fr', 'webhook', 'set', '--plan-id', PLAN, 'file:///etc/passwd'], new RegExp(`invalid <url> "file:///etc/passwd": ${URL_}`)],
  ['webhook with a space', ['fr', 'webhook', 'set', '--plan-id', PLAN, 'https://exa mple.com/'], new RegExp(`invalid <url> "https://exa mple.com/": ${URL_}`)],
  ['scheme-relative webhook', ['fr', 'webhook', 'set', '--plan-id', PLAN, '//example.com/'], new RegExp(`invalid <url> "//example.com/": ${URL_}`)],
  ['ftp forward target', ['wn', 'listen', '--port', '0', '--forward-to', 'ftp://x'], new RegExp(`invalid --forward-to "ftp://x": ${URL_}`)],
  ['ftp base url', ['ot', 'transfers', '--base-url', 'ftp://127.0.0.1:9'], /invalid --base-url "ftp:\/\/127.0.0.1:9": expected an https:\/\/ URL/],
  ['base url with credentials', ['ot', 'transfers', '--base-url', 'https://user:pw@api.example.com'], /invalid --base-url "https:\/\/user:pw@api.example.com": expected no credentials, query or fragment/],
  ['plain http to a private address', ['ot', 'transfers', '--base-url', 'http://10.0.0.1'], /refusing to send the API key over plain http to 10.0.0.1\nhint: use https:\/\//],
  ['plain http to a look-alike of localhost', ['ot', 'transfers', '--base-url', 'http://localhost.evil.com'], /refusing to send the API key over plain http to localhost.evil.com/],

  // chains
  ['chain with a dot', ['ot', 'transfers', '--chain', 'bsc.evil'], new RegExp(`invalid --chain "bsc.evil": ${CHAIN}`)],
  ['upper-case chain', ['ot', 'transfers', '--chain', 'BSC'], new RegExp(`invalid --chain "BSC": ${CHAIN}`)],
  ['chain with a newline', ['ot', 'transfers', '--chain', 'bsc\nx'], new RegExp(`invalid --chain "bsc\\\\nx": ${CHAIN}`)],
  ['chain of 40 letters', ['ot', 'transfers', '--chain', long('a', 40)], new RegExp(`invalid --chain "${long('a', 40)}": ${CHAIN}`)],
  ['chain with a slash from the environment', ['ot', 'transfers'], new RegExp(`invalid PAYREC_CHAIN "bsc/x": ${CHAIN}`), { PAYREC_CHAIN: 'bsc/x' }],
  ['chain with a dot in config', ['config', 'set', 'chain', 'a.b'], new RegExp(`invalid --chain "a.b": ${CHAIN}`)],

  // short url paths and --extra
  ['short url path with a slash', ['fr', 'short-urls', 'get', 'a/b'], new RegExp(`invalid <path> "a/b": ${CODE}`)],
  ['short url path ..', ['od', 'short-urls', 'get', '..'], new RegExp(`invalid <path> "..": ${CODE}`)],
  ['short url path with %2F', ['fr', 'short-urls', 'get', 'a%2Fb'], new RegExp(`invalid <path> "a%2Fb": ${CODE}`)],
  ['update of a/../b', ['od', 'short-urls', 'update', 'a/../b', '--name', 'x'], new RegExp(`invalid <path> "a/../b": ${CODE}`)],
  ['delete of a%2F', ['fr', 'short-urls', 'delete', 'a%2F', '--yes'], new RegExp(`invalid <path> "a%2F": ${CODE}`)],
  ['short url path of 65 characters', ['fr', 'short-urls', 'get', long('a', 65)], new RegExp(`invalid <path> "${long('a', 65)}": ${CODE}`)],
  ['extra without =', ['fr', 'short-urls', 'create', '--name', 'x', '--plan-id', PLAN, '--extra', 'novalue'], /invalid --extra "novalue": expected key=value with a non-empty key/],
  ['extra without a key', ['fr', 'short-urls', 'create', '--name', 'x', '--plan-id', PLAN, '--extra', '=v'], /invalid --extra "=v": expected key=value with a non-empty key/],
  ['extra key too long', ['od', 'short-urls', 'update', 'abc', '--extra', `${long('k', 70)}=v`], new RegExp(`invalid --extra key "${long('k', 70)}": expected letters, digits, _ . - \\(at most 64\\)`)],
  ['extra value with an escape', ['od', 'short-urls', 'update', 'abc', '--extra', 'k=a\u001bb'], new RegExp(`invalid --extra k "a\\\\u001bb": ${CONTROL}`)],
  ['oversize extra value', ['fr', 'short-urls', 'update', 'abc', '--extra', `k=${long('v', 300)}`], new RegExp(`invalid --extra k ${cut(long('v', 300))}: expected at most 256 characters`)],

  // control characters and oversize values
  ['name with a newline', ['fr', 'short-urls', 'create', '--name', 'a\nb', '--plan-id', PLAN], new RegExp(`invalid --name "a\\\\nb": ${CONTROL}`)],
  ['name with a C1 control', ['fr', 'short-urls', 'update', 'abc', '--name', 'a\u009bb'], new RegExp(`invalid --name "a\\\\u009bb": ${CONTROL}`)],
  ['oversize name', ['fr', 'short-urls', 'update', 'abc', '--name', long('n', 300)], new RegExp(`invalid --name ${cut(long('n', 300))}: expected at most 256 characters`)],
  ['tag with a bell', ['ot', 'payments', 'list', '--tag', 'a\u0007b'], new RegExp(`invalid --tag "a\\\\u0007b": ${CONTROL}`)],
  ['oversize tag', ['ot', 'payments', 'list', '--tag', long('t', 5000)], new RegExp(`invalid --tag ${cut(long('t', 5000))}: expected at most 256 characters`)],
  ['email with a newline', ['w2w', 'payments', 'list', '--email', 'a@b\nc'], new RegExp(`invalid --email "a@b\\\\nc": ${CONTROL}`)],
  ['email without @', ['w2w', 'transfers', '--email', 'notanemail'], /invalid --email "notanemail": expected an email address such as ana@example.com/],
  ['token with a space', ['ot', 'transfers', '--token', 'US DT'], /invalid --token "US DT": expected a token symbol such as USDT/],
  ['chart token with a newline', ['fr', 'cancellations', '--plan-id', PLAN, '--chart', 'day', '--token', 'USDT\n'], new RegExp(`invalid --token "USDT\\\\n": ${CONTROL}`)],
  ['profile with a newline', ['ot', 'transfers', '--profile', 'a\nb'], /invalid --profile "a\\nb": expected a name of at most 64 letters, digits, _ . -/],
  ['oversize profile', ['ot', 'transfers', '--profile', long('p', 300)], new RegExp(`invalid --profile ${cut(long('p', 300))}: expected a name`)],
  ['api path with a newline', ['api', 'one-time/transfers\nx'], /invalid PATH "one-time\/transfers\\nx": expected no spaces or control characters/],
  ['api query with a newline', ['api', 'one-time/transfers', '--query', 'k=a\nb'], new RegExp(`invalid --query "k=a\\\\nb": ${CONTROL}`)],
  ['oversize api path', ['api', long('a', 5000)], new RegExp(`invalid PATH ${cut(long('a', 5000))}: expected at most 2048 characters`)],
  ['api path with ..', ['api', 'one-time/../fixed-recurring/short-urls'], /invalid PATH "one-time\/..\/fixed-recurring\/short-urls": expected no . or .. segments/],
  ['api path with %2F', ['api', 'one-time%2Ftransfers'], /invalid PATH "one-time%2Ftransfers": expected no . or .. segments and no encoded slashes/],
  // Mutant killed: backslashes let through (the URL parser reads them as /, and .. then climbs to /admin with the key).
  ['api path climbing with backslashes', ['api', 'one-time\\..\\..\\..\\admin'], /invalid PATH "one-time\\\\..\\\\..\\\\..\\\\admin": expected \/ between segments, not \\/],

  // control characters in free text a user types: C0 escapes, C1, bidi overrides and
  // isolates, line separators; the same rule for every value that goes into a query or body
  ['email with an ESC sequence', ['wallet-to-wallet', 'transfers', '--email', 'a@b.c\u001b[31m'], new RegExp(`invalid --email "a@b.c\\\\u001b\\[31m": ${CONTROL}`)],
  ['email with a C1 NEL', ['w2w', 'payments', 'list', '--email', 'a@b\u0085.c'], new RegExp(`invalid --email "a@b\\\\u0085.c": ${CONTROL}`)],
  ['email with a right-to-left override', ['w2w', 'transfers', '--email', 'moc.b@\u202ea'], new RegExp(`invalid --email "moc.b@\\\\u202ea": ${CONTROL}`)],
  ['tag with a right-to-left override', ['ot', 'payments', 'list', '--tag', 'ebook\u202e'], new RegExp(`invalid --tag "ebook\\\\u202e": ${CONTROL}`)],
  ['tag with a left-to-right embedding', ['ot', 'transfers', '--tag', '\u202aebook'], new RegExp(`invalid --tag "\\\\u202aebook": ${CONTROL}`)],
  ['tag with a first-strong isolate', ['w2w', 'payments', 'list', '--tag', 'a\u2068b\u2069'], new RegExp(`invalid --tag "a\\\\u2068b\\\\u2069": ${CONTROL}`)],
  ['tag with a line separator', ['ot', 'transfers', '--tag', 'a\u2028b'], new RegExp(`invalid --tag "a\\\\u2028b": ${CONTROL}`)],
  ['token with a C1 control', ['ot', 'transfers', '--token', 'USDT\u0085'], new RegExp(`invalid --token "USDT\\\\u0085": ${CONTROL}`)],
  ['token with a right-to-left isolate', ['vr', 'transfers', '--token', '\u2067USDT'], new RegExp(`invalid --token "\\\\u2067USDT": ${CONTROL}`)],
  ['short url name with a right-to-left override', ['fr', 'short-urls', 'create', '--name', 'gpj.\u202eexe', '--plan-id', PLAN], new RegExp(`invalid --name "gpj.\\\\u202eexe": ${CONTROL}`)],
  ['success url with a right-to-left override', ['od', 'short-urls', 'update', 'abc', '--success-url', 'https://shop.example/\u202eok'], new RegExp(`invalid --success-url "https://shop.example/\\\\u202eok": ${CONTROL}`)],
  ['error url with a C1 CSI', ['fr', 'short-urls', 'update', 'abc', '--error-url', 'https://shop.example/\u009b2J'], new RegExp(`invalid --error-url "https://shop.example/\\\\u009b2J": ${CONTROL}`)],
  ['extra value with a pop isolate', ['od', 'short-urls', 'update', 'abc', '--extra', 'banner=BR\u206969'], new RegExp(`invalid --extra banner "BR\\\\u206969": ${CONTROL}`)],
  ['webhook url with a right-to-left override', ['fr', 'webhook', 'set', '--plan-id', PLAN, 'https://shop.example/\u202ehook'], new RegExp(`invalid <url> "https://shop.example/\\\\u202ehook": ${CONTROL}`)],
  ['forward target with an escape', ['wn', 'listen', '--port', '0', '--forward-to', 'http://127.0.0.1/\u001b[2J'], new RegExp(`invalid --forward-to "http://127.0.0.1/\\\\u001b\\[2J": ${CONTROL}`)],
  ['api query with a right-to-left override', ['api', 'one-time/transfers', '--query', 'tag=a\u202eb'], new RegExp(`invalid --query "tag=a\\\\u202eb": ${CONTROL}`)],
  ['api query key with a C1 control', ['api', 'one-time/transfers', '--query', 't\u0085ag=ebook'], new RegExp(`invalid --query "t\\\\u0085ag=ebook": ${CONTROL}`)],
  ['api path with a right-to-left override', ['api', 'one-time/\u202etransfers'], /invalid PATH "one-time\/\\u202etransfers": expected no spaces or control characters/],
  ['api body with an escaped ESC in a string', ['api', 'fixed-recurring/plans/x/webhook', '-X', 'PUT', '--body', '{"webhook":"https://x.example/\\u001b[2J"}'], new RegExp(`invalid --body: the string at "webhook": ${CONTROL}`)],
  ['api body with a raw right-to-left override deep inside', ['api', 'x', '-X', 'POST', '--body', '{"a":[{"b":"c\u202e"}]}'], new RegExp(`invalid --body: the string at "a.0.b": ${CONTROL}`)],
  ['api body with a control character in a key', ['api', 'x', '-X', 'POST', '--body', '{"k\\u0085":1}'], new RegExp(`invalid --body: the string at "k\\\\u0085": ${CONTROL}`)],
  ['api body that is one string with a C1 control', ['api', 'x', '-X', 'POST', '--body', '"\\u009b"'], new RegExp(`invalid --body: the string at the top level: ${CONTROL}`)],
  ['trigger product with an escape', ['emulator', 'trigger', 'Billing', '--plan-id', PLAN, '--type', 'one-time\u001b[2J'], /invalid --type "one-time\\u001b\[2J": expected a product such as fixed-recurring or one-time/],

  // the API key (never echoed: the message names the variable's problem, not its value)
  ['API key with a carriage return', ['ot', 'transfers'], /PAYREC_API_KEY contains whitespace, a newline or a control character/, { PAYREC_API_KEY: 'prk_demo_bsc\r' }],
  ['API key with a space', ['ot', 'transfers'], /PAYREC_API_KEY contains whitespace, a newline or a control character/, { PAYREC_API_KEY: 'prk demo' }],
  ['oversize API key', ['ot', 'transfers'], /PAYREC_API_KEY is longer than 512 characters/, { PAYREC_API_KEY: long('k', 600) }],

  // emulator live traffic
  ['live rate 0', ['emulator', 'start', '--live', '0'], /invalid --live "0": expected records per second, more than 0 and at most 100000/],
  ['live rate in words', ['emulator', 'start', '--live', 'fast'], /invalid --live "fast": expected records per second, such as 150 or 0.5/],
  ['negative live rate', ['emulator', 'start', '--live', '-5'], /invalid --live "-5": expected records per second/],
  ['live rate above the cap', ['emulator', 'start', '--live', '100001'], /invalid --live "100001": expected records per second, more than 0 and at most 100000/],
  ['late fraction above 1', ['emulator', 'start', '--live', '10', '--late-fraction', '1.5'], /invalid --late-fraction "1.5": expected a share from 0 to 1/],
  ['pending fraction in percent', ['emulator', 'start', '--live', '10', '--pending-fraction', '30%'], /invalid --pending-fraction "30%": expected a share from 0 to 1/],
  ['late max of 0', ['emulator', 'start', '--live', '10', '--late-max', '0'], /invalid --late-max "0": expected a duration from 1s to 365d/],
  ['late max beyond a year', ['emulator', 'start', '--live', '10', '--late-max', '400d'], /invalid --late-max "400d": expected a duration from 1s to 365d/],
  ['late max in years', ['emulator', 'start', '--live', '10', '--late-max', '1y'], /invalid --late-max "1y": expected a duration such as 90s, 10m, 2h or 7d \(or plain seconds\)/],
  ['late fraction without --live', ['emulator', 'start', '--late-fraction', '0.1'], /--late-fraction goes with --live\nhint: add --live RATE/],
  ['latency in seconds', ['emulator', 'start', '--latency', '0.5s'], /invalid --latency "0.5s": expected whole milliseconds, such as 150/],
  ['latency beyond a minute', ['emulator', 'start', '--latency', '60001'], /invalid --latency "60001": expected whole milliseconds from 0 to 60000/],
  ['rate limit of 0', ['emulator', 'start', '--rate-limit', '0'], /invalid --rate-limit "0": expected requests a second, more than 0 and at most 10000/],
  ['rate limit in words', ['emulator', 'start', '--rate-limit', 'low'], /invalid --rate-limit "low": expected requests a second, such as 20 or 0.5/],
  ['late max and pending share without --live', ['emulator', 'start', '--late-max', '5m', '--pending-fraction', '0.5'], /--late-max and --pending-fraction go with --live/],

  // listener, completion, config
  ['listen port 70000', ['wn', 'listen', '--port', '70000'], /invalid --port "70000": expected a port from 0 to 65535/],
  ['listen host with a space', ['wn', 'listen', '--host', 'a b'], /invalid --host "a b": expected a host name or IP address/],
  ['completion for powershell', ['completion', 'powershell'], /invalid <shell> "powershell": expected bash, zsh or fish/],
  ['config key', ['config', 'set', 'nope', '1'], /invalid KEY "nope": expected chain, base-url, rpc, tz, format, db, timeout, retries, currency, concurrency, feed/],
  ['stored concurrency above 16', ['config', 'set', 'concurrency', '32'], /invalid config set concurrency "32": expected a whole number from 1 to 16/],
  ['config key with an 8-bit CSI', ['config', 'get', 'a\u009b2J'], /invalid KEY "a\\u009b2J": expected chain, base-url, rpc, tz, format, db, timeout, retries/],
  ['base url with an escape sequence', ['ot', 'transfers', '--base-url', 'https://a\u001b[2Jb'], /invalid --base-url "https:\/\/a\\u001b\[2Jb": expected an https:\/\/ URL/],
  ['shell with a bidi override', ['completion', 'ba\u202esh'], /invalid <shell> "ba\\u202esh": expected bash, zsh or fish/],

  // -o and -f xlsx where a command prints no records (ignored, they would leave a file missing or JSON in a .xlsx)
  ['-o with auth status', ['auth', 'status', '-o', 'status.txt'], /-o is for commands that print records or results, not payrec auth status\nhint: to keep what it prints, redirect it: > FILE/],
  ['-o with config list', ['config', 'list', '-f', 'json', '-o', 'config.json'], /-o is for commands that print records or results, not payrec config list/],
  ['-o with completion', ['completion', 'bash', '-o', 'payrec.bash'], /-o is for commands that print records or results, not payrec completion/],
  ['-o with webhook notification verify', ['wn', 'verify', 'notification.json', '-o', 'verdict.txt'], /-o is for commands that print records or results, not payrec webhook-notifications verify/],
  ['-f xlsx with config get', ['config', 'get', 'chain', '-f', 'xlsx'], /-f xlsx is for commands that print records or results, not payrec config get/],
  ['-f csv with payrec api', ['api', 'one-time/transfers', '-f', 'csv'], /payrec api prints the API's JSON: -f csv does not apply\nhint: for a CSV or a workbook of a list, use its command/],
  ['-o with a delete', ['fr', 'short-urls', 'delete', 'f9yth', '--yes', '-o', 'deleted.json'], /-o is for commands that print records or results, not payrec fixed-recurring short-urls delete/],
  ['--count with -f xlsx', ['ot', 'transfers', '--count', '-f', 'xlsx', '-o', 'count.xlsx'], /--count prints a number: -f xlsx does not apply/],
  ['--count with -f xlsx in payrec sql', ['sql', 'SELECT 1', '--count', '-f', 'xlsx', '-o', 'count.xlsx'], /--count prints a number: -f xlsx does not apply/],
  ['-f xlsx with payrec api', ['api', 'one-time/transfers', '-f', 'xlsx', '-o', 'transfers.xlsx'], /payrec api prints the API's JSON: -f xlsx does not apply/],
  ['--period with verify acks', ['verify', 'acks', '--period', '2026-10'], /--period is a flag of payrec verify itself, not of payrec verify acks/],
  // a command's own flags after a subcommand that has none of that name: refused, not dropped
  ['--token with rates sync', ['rates', 'sync', '--token', 'BNB'], /--token is a flag of payrec rates itself, not of payrec rates sync/],
  ['--from with rates feeds', ['rates', 'feeds', '--from', '2026-01-01'], /--from is a flag of payrec rates itself, not of payrec rates feeds/],
  ['--count with rates import', ['rates', 'import', 'rates.csv', '--count'], /--count is a flag of payrec rates itself, not of payrec rates import/],
  ['--count with fr plans add', ['fr', 'plans', 'add', `0x${'ab'.repeat(32)}`, '--count'], /--count is a flag of payrec fixed-recurring plans itself, not of payrec fixed-recurring plans add/],
  ['--jq with fr plans remove', ['fr', 'plans', 'remove', `0x${'ab'.repeat(32)}`, '--jq', '.x'], /--jq is a flag of payrec fixed-recurring plans itself, not of payrec fixed-recurring plans remove/],
];

/**
 * The cases run by the built binary in a process of its own: the first of each kind above
 * (the bundle's own refusal, printed by its own process), the output file of -o, and the
 * API keys from the environment. The rest are the same refusal's words and exit code, run
 * in this worker (payrecInProcess): no process boundary is under test there (issue 48).
 */
const AS_A_PROCESS = new Set([
  'plan id of 63 hex',
  '30 February',
  'negative page size',
  'upper-case format',
  'output in a missing directory',
  'ftp success url',
  'chain with a dot',
  'short url path with a slash',
  'name with a newline',
  'email with an ESC sequence',
  'API key with a carriage return',
  'API key with a space',
  'oversize API key',
  'live rate 0',
  'listen port 70000',
  '-o with auth status',
  '--token with rates sync',
]);

describe('bad input exits 2, names the value and what is expected, and sends nothing', () => {
  test('the corpus is large enough', () => expect(cases.length).toBeGreaterThanOrEqual(60));
  test('every case run as a process is in the corpus', () => expect([...AS_A_PROCESS].filter((name) => !cases.some(([n]) => n === name))).toEqual([]));

  test.concurrent.each(cases)('%s', async (name, args, message, env = {}) => {
    const r = await (AS_A_PROCESS.has(name) ? payrec : payrecInProcess)(emu, args, { env });
    expect(r.stderr).toMatch(message);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr.length).toBeLessThan(600); // an oversize value is cut, not echoed whole
    for (const key of Object.values(env)) if (key.startsWith('prk') || key.startsWith('kkk')) expect(r.stderr).not.toContain(key.trim());
    expect(emu.requests).toEqual([]);
  });
});
