// Imported first by every bench that times a Node start: those starts, the `node -e 0` baseline's
// included, run without NODE_EXTRA_CA_CERTS. Node parses that bundle of certificates at every
// start (Node 20 does it eagerly), and a machine that sets it (this project's development machine
// points it at the system's 144 certificates) adds ~45 ms of wall and ~5x the instructions of a
// bare start to every process, so ratios to `node -e 0` would read far better than on a machine
// without it. WMEM_BENCH_KEEP_CA_CERTS=1 keeps it (to see what such a machine meets).
const keep = process.env.WMEM_BENCH_KEEP_CA_CERTS === '1';
const had = process.env.NODE_EXTRA_CA_CERTS;
if (had && !keep) delete process.env.NODE_EXTRA_CA_CERTS;

/** One line for the bench's header: how Node starts were timed. */
export const nodeStartNote = !had
  ? 'node starts: NODE_EXTRA_CA_CERTS not set'
  : keep
    ? `node starts: NODE_EXTRA_CA_CERTS=${had} kept (WMEM_BENCH_KEEP_CA_CERTS=1): every start parses it, the baseline's too`
    : `node starts: NODE_EXTRA_CA_CERTS unset for every timed process (it adds a certificate parse to every Node start; WMEM_BENCH_KEEP_CA_CERTS=1 keeps it)`;
console.error(nodeStartNote);
