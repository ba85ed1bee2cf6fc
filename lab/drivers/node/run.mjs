// The conformance lab's Node.js runner: runs one job with one release of the `mongodb` driver and
// reports what the application saw, one JSON line per operation.
//
//   node run.mjs 7.9.0 < job.json      (also accepted: node-7.9.0)
//
// Releases: package.json installs each measured release under the npm alias `mongodb-<version>`
// (`npm ci` in this folder, once); the version argument picks the alias, so several releases live
// side by side and the lock file pins each one's bytes.
//
// Job (stdin, one JSON object; the harness writes it):
//   {"uri": "mongodb://...", "operation": "find"|"insertOne"|"runCommand"|"aggregateOut",
//    "readPreference": "primary"|..., "count": N, "concurrency": C, "database": "lab",
//    "collection": "c"}
// One MongoClient is made from the URI. Before any operation the runner waits until the monitors
// have discovered every server (from the driver's topologyDescriptionChanged events), so the first
// operations see the same topology as the last: otherwise a primaryPreferred retry that
// deprioritizes the primary could find the secondary still Unknown and go back to the primary.
// Connecting sends no command: the client is made with the driver's own __skipPingOnConnect
// option, the one its automatic connect on a first operation uses, because an explicit connect()
// in 7.x otherwise checks out a pooled connection, an application handshake that the experiments'
// handshake scripts would answer instead of the first operation's. Then `count` operations run, at
// most `concurrency` at a time (a new one starts when one finishes). Operation i carries the
// comment "op-i", so the mock server can tell its attempts apart:
//   find          collection.find({}, {comment}) and its first batch (the mock answers an empty
//                 batch with cursor id 0);
//   insertOne     collection.insertOne({_id: i}, {comment});
//   runCommand    db.command({find: collection, filter: {}, comment}) with the read preference;
//   aggregateOut  collection.aggregate([{$out: "out"}], {comment}), fully iterated.
// Reads (find, runCommand) use the job's read preference; the writes use the primary, as an
// application would.
//
// Output (stdout): one line per operation, in completion order:
//   {"op", "ok", "code", "codeName", "labels" (sorted), "network", "timeout", "selection",
//    "message"}
// network: a MongoNetworkError (closed connection, reset...); timeout: MongoOperationTimeoutError
// (timeoutMS) or MongoNetworkTimeoutError (a socket timeout); selection: MongoServerSelectionError.
// labels are every label the error carries, the driver's own bookkeeping ones included
// (HandshakeError, ResetPool): the harness classifies by SystemOverloadedError and the code, and
// the runner only reports the driver's facts. Driver warnings (6.22.0 and 7.8.0+ ignore timeoutMS
// and say so) go to stderr. Exit 0 once every operation has a line and the client is closed.
//
// Tests (no server needed): node --test lab/drivers/node/
//
// Failures: a bad job, an unknown release, a client that cannot connect or discover every server
// within its serverSelectionTimeoutMS, or a crash go to stderr with exit 1 and no lines. A
// release that refuses the URI itself (releases before 7.2.0 throw MongoParseError for
// maxAdaptiveRetries and enableOverloadRetargeting) is a result, not a setup failure: an
// application with that URI gets the error before any command, so every operation gets a line
// with ok false, no code, no labels, no flags (class "other") and the message
// "MongoClient: <error name>: <message>", said once on stderr too, and the exit is 0. Dropping the
// option instead would report a run no application of that release can make.

import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

/** Operations the runner knows, as the experiments name them. */
export const OPERATIONS = ['find', 'insertOne', 'runCommand', 'aggregateOut'];

/** Read preference modes a job may ask for ("" or absent means primary). */
export const READ_PREFERENCES = ['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'];

// A job is small; a bound keeps a runaway count from becoming a runaway run.
const MAX_COUNT = 100000;
const MAX_CONCURRENCY = 1000;

/**
 * parseJob reads the job's JSON text and checks every field, throwing one Error that names each
 * bad field, its value and the rule. Fields the protocol does not define are ignored, so the
 * harness may add context without breaking older runners.
 */
export function parseJob(text) {
  let raw;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`job: not JSON: ${e.message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`job: ${JSON.stringify(raw)}: must be a JSON object`);
  }
  const problems = [];
  const bad = (field, rule) => problems.push(`${field}: ${JSON.stringify(raw[field])}: ${rule}`);
  const isName = (v) => typeof v === 'string' && v !== '';
  const isCount = (v, hi) => Number.isInteger(v) && v >= 1 && v <= hi;

  if (!isName(raw.uri) || !/^mongodb(\+srv)?:\/\//.test(raw.uri)) {
    bad('uri', 'must be a mongodb:// or mongodb+srv:// connection string');
  }
  if (!OPERATIONS.includes(raw.operation)) bad('operation', `must be one of ${OPERATIONS.join(', ')}`);
  if (raw.readPreference !== undefined && raw.readPreference !== '' &&
      !READ_PREFERENCES.includes(raw.readPreference)) {
    bad('readPreference', `must be empty or one of ${READ_PREFERENCES.join(', ')}`);
  }
  if (!isCount(raw.count, MAX_COUNT)) bad('count', `must be an integer from 1 to ${MAX_COUNT}`);
  if (!isCount(raw.concurrency, MAX_CONCURRENCY)) {
    bad('concurrency', `must be an integer from 1 to ${MAX_CONCURRENCY}`);
  }
  if (!isName(raw.database)) bad('database', 'must be a non-empty string');
  if (!isName(raw.collection)) bad('collection', 'must be a non-empty string');
  if (problems.length > 0) throw new Error(`job: ${problems.join('; ')}`);

  return {
    uri: raw.uri,
    operation: raw.operation,
    readPreference: raw.readPreference || 'primary',
    count: raw.count,
    // More workers than operations would only idle.
    concurrency: Math.min(raw.concurrency, raw.count),
    database: raw.database,
    collection: raw.collection,
  };
}

/**
 * releaseAlias turns the version argument ("7.9.0" or "node-7.9.0") into the package alias that
 * package.json installs it under, or throws naming the argument.
 */
export function releaseAlias(arg) {
  const m = /^(?:node-)?(\d+\.\d+\.\d+)$/.exec(arg ?? '');
  if (!m) throw new Error(`release: ${JSON.stringify(arg ?? null)}: must be a version like 7.9.0`);
  return `mongodb-${m[1]}`;
}

/** okLine is the line of an operation that succeeded. */
export function okLine(op) {
  return {
    op, ok: true, code: 0, codeName: '', labels: [],
    network: false, timeout: false, selection: false, message: '',
  };
}

/**
 * errorLine maps the error an operation threw to its line, using the error classes of the release
 * that threw it (driver is the imported module): an instanceof test against another release's
 * classes would always be false. A class a release does not export counts as absent.
 */
export function errorLine(op, err, driver) {
  const is = (name) => typeof driver?.[name] === 'function' && err instanceof driver[name];
  const labels = Array.isArray(err?.errorLabels) ? [...err.errorLabels].map(String).sort() : [];
  const name = typeof err?.name === 'string' ? err.name : 'Error';
  const message = err instanceof Error ? err.message : String(err);
  return {
    op,
    ok: false,
    // Node's system errors carry string codes (ECONNRESET): only a server's number is a code.
    code: Number.isInteger(err?.code) ? err.code : 0,
    codeName: typeof err?.codeName === 'string' ? err.codeName : '',
    labels,
    network: is('MongoNetworkError'),
    timeout: is('MongoOperationTimeoutError') || is('MongoNetworkTimeoutError'),
    selection: is('MongoServerSelectionError'),
    message: `${name}: ${message}`,
  };
}

/**
 * refusedLine is the line of an operation that never ran because the release refused the client
 * itself (see the header): class "other", with the constructor's error as the message.
 */
export function refusedLine(op, err) {
  const name = typeof err?.name === 'string' ? err.name : 'Error';
  const message = err instanceof Error ? err.message : String(err);
  return {
    op, ok: false, code: 0, codeName: '', labels: [],
    network: false, timeout: false, selection: false,
    message: `MongoClient: ${name}: ${message}`,
  };
}

/**
 * runAll runs operations 0..count-1 with at most concurrency in flight, starting the next one as
 * soon as one finishes, and hands each line to emit. runOne must not throw: it turns its own
 * failures into lines.
 */
export async function runAll(count, concurrency, runOne, emit) {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      emit(await runOne(i));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * undiscovered returns the addresses of the servers a topology description still has as Unknown,
 * sorted; none once every server has answered its monitor.
 */
export function undiscovered(description) {
  if (!description?.servers) return ['(no topology yet)'];
  return [...description.servers.values()]
    .filter((sd) => sd.type === 'Unknown')
    .map((sd) => sd.address)
    .sort();
}

/**
 * connectAndDiscover connects client and waits until no server of its topology is Unknown,
 * throwing after waitMS with the servers still unknown. It follows the topology through the
 * client's topologyDescriptionChanged events, so it needs nothing but the public event API.
 */
export async function connectAndDiscover(client, waitMS) {
  let latest = null;
  let wake = () => {};
  const onChange = (ev) => {
    latest = ev.newDescription;
    wake();
  };
  client.on('topologyDescriptionChanged', onChange);
  try {
    await client.connect();
    const until = Date.now() + waitMS;
    for (;;) {
      const missing = undiscovered(latest);
      if (missing.length === 0) return;
      const left = until - Date.now();
      if (left <= 0) {
        throw new Error(`discovery: ${missing.join(', ')}: still Unknown after ${waitMS} ms`);
      }
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  } finally {
    client.off('topologyDescriptionChanged', onChange);
  }
}

/**
 * operation returns the function that runs operation i of the job on client, resolving when the
 * application would have its result.
 */
export function operation(job, client) {
  const db = client.db(job.database);
  const coll = db.collection(job.collection);
  const readPreference = job.readPreference;
  switch (job.operation) {
    case 'find':
      return async (i) => {
        const cursor = coll.find({}, { comment: `op-${i}`, readPreference });
        try {
          await cursor.next(); // the first batch: the find command itself
        } finally {
          // Only the find's error is the operation's; a failed close would hide it.
          await cursor.close().catch(() => {});
        }
      };
    case 'insertOne':
      return (i) => coll.insertOne({ _id: i }, { comment: `op-${i}` });
    case 'runCommand':
      return (i) => db.command(
        { find: job.collection, filter: {}, comment: `op-${i}` },
        { readPreference },
      );
    case 'aggregateOut':
      return (i) => coll.aggregate([{ $out: 'out' }], { comment: `op-${i}` }).toArray();
  }
  throw new Error(`operation: ${JSON.stringify(job.operation)}: must be one of ${OPERATIONS.join(', ')}`);
}

function writeLine(line) {
  process.stdout.write(JSON.stringify(line) + '\n');
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function main(argv) {
  if (argv.length !== 1) throw new Error('usage: node run.mjs <version> < job.json');
  const alias = releaseAlias(argv[0]);
  const job = parseJob(await readStdin());

  let driver;
  try {
    driver = await import(alias);
  } catch (e) {
    const pkg = JSON.parse(await readFile(new URL('./package.json', import.meta.url), 'utf8'));
    const known = Object.keys(pkg.dependencies ?? {}).join(', ');
    throw new Error(`release: ${argv[0]}: cannot load ${alias} (${e.code ?? e.message}); ` +
      `installed with npm ci: ${known}`);
  }

  let client;
  try {
    client = new driver.MongoClient(job.uri, { __skipPingOnConnect: true });
  } catch (e) {
    const line = refusedLine(0, e);
    process.stderr.write(`${alias} refuses the URI: ${line.message}\n`);
    for (let i = 0; i < job.count; i++) writeLine(refusedLine(i, e));
    return;
  }

  try {
    const waitMS = client.options?.serverSelectionTimeoutMS ?? 30000;
    try {
      await connectAndDiscover(client, waitMS);
    } catch (e) {
      throw new Error(`connecting with ${alias}: ${e?.name ?? 'Error'}: ${e?.message ?? e}`);
    }
    const run = operation(job, client);
    await runAll(job.count, job.concurrency, async (i) => {
      try {
        await run(i);
        return okLine(i);
      } catch (e) {
        return errorLine(i, e, driver);
      }
    }, writeLine);
  } finally {
    try {
      await client.close();
    } catch (e) {
      // Every line is out; a failed close is worth a word but changes no result.
      process.stderr.write(`closing the client: ${e?.message ?? e}\n`);
    }
  }
}

// exit leaves once stdout has taken every line. Waiting for the event loop to empty instead would
// wait on the driver: releases up to 7.1 leave a timer armed after close() when a handshake
// failed (seen: 5 s, the serverSelectionTimeoutMS), which would add seconds to such runs.
function exit(code) {
  process.stdout.write('', () => process.exit(code));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    () => exit(0),
    (e) => {
      process.stderr.write(`run.mjs: ${e?.message ?? e}\n`);
      exit(1);
    },
  );
}
