// The lean bundle and the full build each carry a copy of WmemError; an error thrown by one copy
// must still be recognised by the other (else a clear one-line error would print as a crash).
import { describe, expect, it } from 'vitest';
import { EXIT, WmemError, fsError, usageError } from '../../src/ui/errors.js';

describe('WmemError across bundle copies', () => {
  it('recognises an error made by a second, separately loaded copy of the module', async () => {
    // A query string makes the module loader evaluate the file again: a distinct class object.
    const secondCopy: string = '../../src/ui/errors.ts?second-copy';
    const copy = (await import(secondCopy)) as typeof import('../../src/ui/errors.js');
    expect(copy.WmemError).not.toBe(WmemError);
    const foreign = copy.usageError('bad --format', 'use text or json');
    expect(foreign instanceof WmemError).toBe(true);
    expect(usageError('x') instanceof copy.WmemError).toBe(true);
    // fsError passes a foreign WmemError through instead of wrapping it as an I/O failure.
    expect(fsError(foreign, 'read', '/x')).toBe(foreign);
  });

  it('does not mistake other errors for one', () => {
    expect(new Error('boom') instanceof WmemError).toBe(false);
    expect((null as unknown) instanceof WmemError).toBe(false);
    expect({ exitCode: EXIT.usage } instanceof WmemError).toBe(false);
  });
});
