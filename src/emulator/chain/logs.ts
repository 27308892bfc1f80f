import { encodeAbiParameters, toEventSelector, type AbiEvent, type AbiParameter, type Address, type Hex } from 'viem';
import { EVENTS } from '../../chain/model.js';

// A log as a receipt carries it, encoded by viem from the model's event ABIs (ONCHAIN.md
// §1, §6): topic0 (the event's selector), each indexed argument ABI-encoded as a topic, the
// others ABI-encoded together in `data`. The same as viem's encodeEventTopics, with each
// event's selector hashed once rather than on every log (a receipt build is mostly that).

export interface Log {
  address: Address;
  topics: Hex[];
  data: Hex;
}

export type EventName = keyof typeof EVENTS;

interface Compiled {
  topic0: Hex;
  indexed: AbiParameter[];
  data: AbiParameter[];
}

const compiled = new Map<EventName, Compiled>();

function compile(name: EventName): Compiled {
  let c = compiled.get(name);
  if (!c) {
    const event = EVENTS[name] as AbiEvent;
    c = { topic0: toEventSelector(event), indexed: event.inputs.filter((i) => i.indexed), data: event.inputs.filter((i) => !i.indexed) };
    compiled.set(name, c);
  }
  return c;
}

/** `args` by argument name, as the model's ABI names them. */
export function eventLog(address: Address, name: EventName, args: Record<string, unknown>): Log {
  const c = compile(name);
  const topics = [c.topic0, ...c.indexed.map((i) => encodeAbiParameters([i], [args[i.name!]]))];
  const data = c.data.length === 0 ? '0x' : encodeAbiParameters(c.data, c.data.map((i) => args[i.name!]));
  return { address, topics, data };
}
