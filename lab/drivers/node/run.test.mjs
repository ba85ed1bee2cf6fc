// Tests of the Node.js runner that need no server: job parsing, error mapping with each installed
// release's own error classes, the concurrency limit, and the runner's exits end to end (a URI a
// release refuses, a bad job, an unknown release, a server that cannot be reached).
//
//   node --test lab/drivers/node/     (after npm ci in lab/drivers/node)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import {
  parseJob, releaseAlias, errorLine, okLine, refusedLine, runAll, undiscovered, connectAndDiscover, operation,
} from './run.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const runner = fileURLToPath(new URL('./run.mjs', import.meta.url));
const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
// Installed releases, oldest first.
const releases = Object.keys(pkg.dependencies).map((a) => a.replace(/^mongodb-/, ''))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

const goodJob = {
  uri: 'mongodb://127.0.0.1:27017/?serverMonitoringMode=poll',
  operation: 'find', readPreference: 'primaryPreferred',
  count: 3, concurrency: 2, database: 'lab', collection: 'c',
};
const jobText = (over) => JSON.stringify({ ...goodJob, ...over });

test('parseJob accepts good jobs', async (t) => {
  const cases = [
    { name: 'as given', over: {}, want: { ...goodJob } },
    { name: 'no read preference is primary', over: { readPreference: undefined }, want: { ...goodJob, readPreference: 'primary' } },
    { name: 'empty read preference is primary', over: { readPreference: '' }, want: { ...goodJob, readPreference: 'primary' } },
    { name: 'concurrency above count is count', over: { concurrency: 10 }, want: { ...goodJob, concurrency: 3 } },
    { name: 'unknown fields ignored', over: { experiment: 'x' }, want: { ...goodJob } },
    { name: 'every operation', over: { operation: 'aggregateOut' }, want: { ...goodJob, operation: 'aggregateOut' } },
  ];
  for (const c of cases) {
    await t.test(c.name, () => assert.deepEqual(parseJob(jobText(c.over)), c.want));
  }
});

test('parseJob names the field, value and rule of a bad job', async (t) => {
  const cases = [
    { name: 'not JSON', text: '{', want: /^job: not JSON/ },
    { name: 'array', text: '[]', want: /^job: \[\]: must be a JSON object/ },
    { name: 'null', text: 'null', want: /^job: null: must be a JSON object/ },
    { name: 'uri missing', over: { uri: undefined }, want: /uri: undefined: must be a mongodb:\/\// },
    { name: 'uri scheme', over: { uri: 'http://x' }, want: /uri: "http:\/\/x": must be/ },
    { name: 'operation', over: { operation: 'delete' }, want: /operation: "delete": must be one of find, insertOne, runCommand, aggregateOut/ },
    { name: 'read preference', over: { readPreference: 'fastest' }, want: /readPreference: "fastest": must be empty or one of/ },
    { name: 'count zero', over: { count: 0 }, want: /count: 0: must be an integer from 1/ },
    { name: 'count fraction', over: { count: 1.5 }, want: /count: 1.5: must be an integer/ },
    { name: 'count string', over: { count: '3' }, want: /count: "3": must be an integer/ },
    { name: 'concurrency', over: { concurrency: -1 }, want: /concurrency: -1: must be an integer from 1/ },
    { name: 'database', over: { database: '' }, want: /database: "": must be a non-empty string/ },
    { name: 'collection', over: { collection: 7 }, want: /collection: 7: must be a non-empty string/ },
    { name: 'every problem at once', over: { count: 0, collection: '' }, want: /count: 0: .*; collection: "": / },
  ];
  for (const c of cases) {
    await t.test(c.name, () => assert.throws(() => parseJob(c.text ?? jobText(c.over)), { message: c.want }));
  }
});

test('releaseAlias', async (t) => {
  const cases = [
    { arg: '7.9.0', want: 'mongodb-7.9.0' },
    { arg: 'node-6.22.0', want: 'mongodb-6.22.0' },
    { arg: '7.9', err: /release: "7.9": must be a version like 7.9.0/ },
    { arg: 'latest', err: /release: "latest"/ },
    { arg: undefined, err: /release: null/ },
  ];
  for (const c of cases) {
    await t.test(String(c.arg), () => {
      if (c.err) assert.throws(() => releaseAlias(c.arg), { message: c.err });
      else assert.equal(releaseAlias(c.arg), c.want);
    });
  }
});

// A release that needs a newer Node than the machine's would fail on import, or subtly later.
test('every installed release supports this Node', async (t) => {
  const newer = (a, b) => a.localeCompare(b, 'en', { numeric: true }) >= 0;
  for (const release of releases) {
    await t.test(release, () => {
      const meta = JSON.parse(readFileSync(new URL(`./node_modules/mongodb-${release}/package.json`, import.meta.url), 'utf8'));
      assert.equal(meta.version, release);
      const m = /^>=\s*(\d+\.\d+\.\d+)$/.exec(meta.engines?.node ?? '');
      assert.ok(m, `mongodb ${release}: engines.node ${JSON.stringify(meta.engines?.node)}: expected ">=x.y.z"`);
      assert.ok(newer(process.versions.node, m[1]), `mongodb ${release} needs Node ${m[1]}, this is ${process.versions.node}`);
    });
  }
});

// Every release the package installs must export the classes the mapping relies on and map its
// own errors the same way.
for (const release of releases) {
  test(`errorLine maps mongodb ${release}'s errors`, async (t) => {
    const d = await import(`mongodb-${release}`);
    // The runner's one client option must be one the release knows, or every run would be refused.
    await new d.MongoClient('mongodb://127.0.0.1:1/', { __skipPingOnConnect: true }).close();
    for (const name of ['MongoClient', 'MongoServerError', 'MongoNetworkError', 'MongoNetworkTimeoutError',
      'MongoServerSelectionError', 'MongoOperationTimeoutError']) {
      assert.equal(typeof d[name], 'function', `${release} exports ${name}`);
    }
    const none = { code: 0, codeName: '', labels: [], network: false, timeout: false, selection: false };
    const cases = [
      {
        name: 'overload reply',
        err: new d.MongoServerError({
          ok: 0, code: 462, codeName: 'IngressRequestRateLimitExceeded', errmsg: 'slow down',
          errorLabels: ['SystemOverloadedError', 'RetryableError'],
        }),
        want: { ...none, code: 462, codeName: 'IngressRequestRateLimitExceeded', labels: ['RetryableError', 'SystemOverloadedError'], message: 'MongoServerError: slow down' },
      },
      {
        name: 'reply without labels',
        err: new d.MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' }),
        want: { ...none, code: 10107, codeName: 'NotWritablePrimary', message: 'MongoServerError: not primary' },
      },
      {
        name: 'closed connection with a label added',
        err: (() => { const e = new d.MongoNetworkError('connection 3 closed'); e.addErrorLabel('SystemOverloadedError'); e.addErrorLabel('RetryableError'); return e; })(),
        want: { ...none, network: true, labels: ['RetryableError', 'SystemOverloadedError'], message: 'MongoNetworkError: connection 3 closed' },
      },
      {
        name: 'socket timeout',
        err: new d.MongoNetworkTimeoutError('timed out'),
        want: { ...none, network: true, timeout: true, message: 'MongoNetworkTimeoutError: timed out' },
      },
      {
        name: 'timeoutMS expired',
        err: new d.MongoOperationTimeoutError('Timed out during operation'),
        want: { ...none, timeout: true, message: 'MongoOperationTimeoutError: Timed out during operation' },
      },
      {
        name: 'server selection',
        err: new d.MongoServerSelectionError('Server selection timed out after 30000 ms', {}),
        want: { ...none, selection: true, message: 'MongoServerSelectionError: Server selection timed out after 30000 ms' },
      },
      {
        name: 'a system error code is no server code',
        err: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
        want: { ...none, message: 'Error: read ECONNRESET' },
      },
      { name: 'not an Error', err: 'boom', want: { ...none, message: 'Error: boom' } },
    ];
    for (const c of cases) {
      await t.test(c.name, () => assert.deepEqual(errorLine(5, c.err, d), { op: 5, ok: false, ...c.want }));
    }
  });
}

test('okLine and refusedLine', () => {
  assert.deepEqual(okLine(2), {
    op: 2, ok: true, code: 0, codeName: '', labels: [], network: false, timeout: false, selection: false, message: '',
  });
  const e = Object.assign(new Error('option maxadaptiveretries is not supported'), { name: 'MongoParseError' });
  assert.deepEqual(refusedLine(1, e), {
    op: 1, ok: false, code: 0, codeName: '', labels: [], network: false, timeout: false, selection: false,
    message: 'MongoClient: MongoParseError: option maxadaptiveretries is not supported',
  });
});

test('runAll runs each operation once, at most concurrency at a time, refilling as each ends', async (t) => {
  const cases = [
    { count: 10, concurrency: 3 },
    { count: 2, concurrency: 5 },
    { count: 1, concurrency: 1 },
    { count: 7, concurrency: 7 },
  ];
  for (const c of cases) {
    await t.test(`${c.count}/${c.concurrency}`, async () => {
      let inFlight = 0;
      let peak = 0;
      const started = [];
      const lines = [];
      await runAll(c.count, c.concurrency, async (i) => {
        started.push(i);
        inFlight++;
        peak = Math.max(peak, inFlight);
        // Uneven durations: a fixed-batch scheduler would not keep the peak at the limit.
        await new Promise((r) => setTimeout(r, (i % 3) * 3));
        inFlight--;
        return { op: i };
      }, (l) => lines.push(l.op));
      assert.equal(peak, Math.min(c.count, c.concurrency));
      assert.deepEqual(started, [...Array(c.count).keys()]);
      assert.deepEqual([...lines].sort((a, b) => a - b), [...Array(c.count).keys()]);
    });
  }
});

function run(args, input) {
  const r = spawnSync(process.execPath, [runner, ...args], { input, cwd: here, encoding: 'utf8', timeout: 60000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, lines: r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
}

test('a release that refuses the URI reports every operation as refused and exits 0', () => {
  // 7.1.0 and earlier parse the URI strictly and know no maxAdaptiveRetries.
  const old = releases.find((r) => /^(6\.|7\.[01]\.)/.test(r));
  assert.ok(old, 'package.json keeps a release before 7.2.0');
  const r = run([old], jobText({ uri: 'mongodb://127.0.0.1:1/?maxAdaptiveRetries=4', count: 4 }));
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.lines.map((l) => l.op), [0, 1, 2, 3]);
  for (const l of r.lines) {
    assert.equal(l.ok, false);
    assert.match(l.message, /^MongoClient: MongoParseError: .*maxadaptiveretries/i);
  }
  assert.match(r.stderr, /refuses the URI/);
});

test('setup failures go to stderr with exit 1 and no lines', async (t) => {
  const cases = [
    { name: 'bad job', args: ['7.9.0'], input: jobText({ count: 0 }), want: /count: 0/ },
    { name: 'unknown release', args: ['1.2.3'], input: jobText({}), want: /release: 1\.2\.3: cannot load mongodb-1\.2\.3.*installed with npm ci: mongodb-/ },
    { name: 'no release', args: [], input: jobText({}), want: /usage: node run\.mjs <version>/ },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const r = run(c.args, c.input);
      assert.equal(r.status, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, c.want);
    });
  }
});

test('a client that cannot connect is a setup failure', () => {
  // Port 1 refuses connections at once; the short selection timeout bounds the test.
  const newest = releases[releases.length - 1];
  const r = run([newest], jobText({
    uri: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200&directConnection=true',
  }));
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /connecting with mongodb-[\d.]+: MongoServerSelectionError: .*ECONNREFUSED/);
});

// A fake topology description: address → type, as the driver's ServerDescription has them.
const description = (types) => ({
  servers: new Map(Object.entries(types).map(([address, type]) => [address, { address, type }])),
});

test('undiscovered', async (t) => {
  const cases = [
    { name: 'no description yet', d: null, want: ['(no topology yet)'] },
    { name: 'all known', d: description({ a: 'RSPrimary', b: 'RSSecondary' }), want: [] },
    { name: 'some unknown, sorted', d: description({ c: 'Unknown', a: 'Mongos', b: 'Unknown' }), want: ['b', 'c'] },
  ];
  for (const c of cases) await t.test(c.name, () => assert.deepEqual(undiscovered(c.d), c.want));
});

// fakeClient connects at once, then announces the descriptions one by one, a few ms apart.
class FakeClient extends EventEmitter {
  constructor(steps) {
    super();
    this.steps = steps;
  }

  async connect() {
    this.steps.forEach((types, k) => setTimeout(() => this.emit('topologyDescriptionChanged', { newDescription: description(types) }), 5 * (k + 1)));
  }
}

test('connectAndDiscover waits for every server, and no longer than its bound', async (t) => {
  await t.test('returns once the last server is known', async () => {
    const c = new FakeClient([{ a: 'Unknown', b: 'Unknown' }, { a: 'RSPrimary', b: 'Unknown' }, { a: 'RSPrimary', b: 'RSSecondary' }]);
    const t0 = Date.now();
    await connectAndDiscover(c, 5000);
    assert.ok(Date.now() - t0 >= 14, 'it waited for the third description');
    assert.equal(c.listenerCount('topologyDescriptionChanged'), 0, 'its listener is gone');
  });
  await t.test('names the servers still unknown at the bound', async () => {
    const c = new FakeClient([{ a: 'RSPrimary', b: 'Unknown' }]);
    await assert.rejects(connectAndDiscover(c, 50), { message: 'discovery: b: still Unknown after 50 ms' });
    assert.equal(c.listenerCount('topologyDescriptionChanged'), 0);
  });
  await t.test('a failed connect is its error', async () => {
    const c = new FakeClient([]);
    c.connect = async () => { throw new Error('no route'); };
    await assert.rejects(connectAndDiscover(c, 50), { message: 'no route' });
  });
});

test('operation i sends its command with the comment op-i', async (t) => {
  // A fake client records the calls the driver's API would get.
  const calls = [];
  const cursor = (what) => ({
    next: async () => { calls.push(`${what}.next`); return null; },
    close: async () => { calls.push(`${what}.close`); },
    toArray: async () => { calls.push(`${what}.toArray`); return []; },
  });
  const client = {
    db: (name) => ({
      command: async (cmd, opts) => { calls.push(['command', name, cmd, opts]); return { ok: 1 }; },
      collection: (coll) => ({
        find: (filter, opts) => { calls.push(['find', name, coll, filter, opts]); return cursor('find'); },
        insertOne: async (doc, opts) => { calls.push(['insertOne', name, coll, doc, opts]); },
        aggregate: (pipeline, opts) => { calls.push(['aggregate', name, coll, pipeline, opts]); return cursor('aggregate'); },
      }),
    }),
  };
  const cases = [
    { operation: 'find', want: [['find', 'lab', 'c', {}, { comment: 'op-7', readPreference: 'secondary' }], 'find.next', 'find.close'] },
    { operation: 'insertOne', want: [['insertOne', 'lab', 'c', { _id: 7 }, { comment: 'op-7' }]] },
    { operation: 'runCommand', want: [['command', 'lab', { find: 'c', filter: {}, comment: 'op-7' }, { readPreference: 'secondary' }]] },
    { operation: 'aggregateOut', want: [['aggregate', 'lab', 'c', [{ $out: 'out' }], { comment: 'op-7' }], 'aggregate.toArray'] },
  ];
  for (const c of cases) {
    await t.test(c.operation, async () => {
      calls.length = 0;
      const job = parseJob(jobText({ operation: c.operation, readPreference: 'secondary' }));
      await operation(job, client)(7);
      assert.deepEqual(calls, c.want);
    });
  }
});
