import { z } from 'zod';
import { flagOf } from '../core/runtime/options.js';
import { endpoints } from '../registry/endpoints.js';
import { productAliases } from '../registry/products.js';
import type { Product } from '../registry/types.js';

// The hint of a command that lacks an id: where such ids are listed (shared by the
// generated commands and `fr webhook set`; not a command of its own).

/**
 * Where the ids a command asks for can be read: the product's lists whose records carry
 * that field and that do not themselves need it ("find plan ids with: payrec fr
 * short-urls list --columns planId"). Derived from the registry, so it stays true.
 */
export function whereIdsComeFrom(product: Product, names: string[]): string | undefined {
  const found = names.flatMap((name) => {
    const sources = endpoints.filter(
      (e) => e.product === product && e.kind === 'list' && e.record instanceof z.ZodObject && name in e.record.shape && !e.params.some((p) => p.name === name),
    );
    const commands = [...new Set(sources.map((e) => ['payrec', productAliases[product], ...e.command, ...e.params.map((p) => `${flagOf(p.name)} ID`), '--columns', name].join(' ')))];
    return commands.length ? [`${name.replace(/Id$/, '')} ids with: ${commands.join(', or ')}`] : [];
  });
  return found.length ? `find ${found.join('; ')}` : undefined;
}
