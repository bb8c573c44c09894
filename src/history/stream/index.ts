// The streaming file helpers of history/, under the one name code outside history/ imports them
// by: reads (read.ts), durable writes (durable.ts), the swap of messages.jsonl while it is
// appended to (swap.ts), and the sweeping of killed runs' leftovers (leftovers.ts).
export * from './read.js';
export * from './durable.js';
export * from './swap.js';
export * from './leftovers.js';
