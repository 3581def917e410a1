// The JavaScript client against the built binary ($FAUXTH_BIN), with Node's own test runner: node --test clients/js/test
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';

import Fauxth, { FauxthError } from '../index.js';

const signUp = (fauxth, email) => fetch(`${fauxth.url}/auth/v1/signup`, {
  method: 'POST', headers: { 'content-type': 'application/json', apikey: 'anon' },
  body: JSON.stringify({ email, password: 'secret123' }),
});

describe('a started server', () => {
  let fauxth;
  before(async () => { fauxth = await Fauxth.start({ args: ['--deterministic', '5'] }); });
  after(async () => { await fauxth?.stop(); });
  beforeEach(async () => { await fauxth.reset(); });

  test('start waits for the ready line; attach reuses the server without owning it', async () => {
    assert.equal((await fauxth.health()).status, 'ok');
    assert.equal((await fauxth.info()).base_url, fauxth.url);
    assert.ok(fauxth.lines.some((line) => line === `ready ${fauxth.url}`));
    const attached = await Fauxth.attach(fauxth.url);
    assert.equal(await attached.stop(), null);
    assert.equal((await fauxth.health()).status, 'ok');
  });

  test('waitForMessage returns the code the dialect accepts', async () => {
    assert.equal((await signUp(fauxth, 'ada@example.com')).status, 200);
    const message = await fauxth.waitForMessage({ to: 'ada@example.com', purpose: 'verify_email' });
    assert.equal(message.to, 'ada@example.com');
    assert.equal(message.code, message.codes[0]);
    assert.ok(message.links.some((link) => link.includes('/auth/v1/verify')));
    const verified = await fetch(`${fauxth.url}/auth/v1/verify`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'signup', email: 'ada@example.com', token: message.code }),
    });
    assert.equal(verified.status, 200);
    await assert.rejects(fauxth.waitForMessage({ to: 'nobody@example.com', timeout: 0.2 }),
      (error) => error instanceof FauxthError && error.status === 408);
  });

  test('the clock freezes and advances, and codes expire with it', async () => {
    await fauxth.withFrozenClock(async () => {
      assert.equal((await fauxth.now()).toISOString(), '2030-01-02T03:04:05.000Z');
      await signUp(fauxth, 'late@example.com');
      const { code } = await fauxth.waitForMessage({ to: 'late@example.com' });
      assert.equal((await fauxth.advance({ days: 1 })).toISOString(), '2030-01-03T03:04:05.000Z');
      const late = await fetch(`${fauxth.url}/auth/v1/verify`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'signup', email: 'late@example.com', token: code }),
      });
      assert.equal(late.status, 403);
      assert.equal((await late.json()).error_code, 'otp_expired');
    }, '2030-01-02T03:04:05Z');
    assert.notEqual((await fauxth.request('GET', '/clock')).mode, 'frozen');
  });

  test('a fault holds inside withFault only', async () => {
    const rule = { match: { operation: 'supabase:signup' }, effect: { type: 'error', error: 'server_error' } };
    await fauxth.withFault(rule, async (added) => {
      assert.deepEqual((await fauxth.faults()).map((r) => r.id), [added.id]);
      const failed = await signUp(fauxth, 'faulted@example.com');
      assert.equal(failed.status, 500);
      assert.equal((await failed.json()).error_code, 'unexpected_failure');
    });
    assert.deepEqual(await fauxth.faults(), []);
    assert.equal((await signUp(fauxth, 'faulted@example.com')).status, 200);
  });

  test('a tenant lives inside withTenant and keeps its users to itself', async () => {
    let id;
    await fauxth.withTenant('cognito', async (pool) => {
      id = pool.id;
      // No id given: one in Cognito's form, which CognitoUserPool insists on.
      assert.match(pool.id, /^us-east-1_[0-9A-Za-z]{9}$/);
      const user = await fauxth.createUser(pool.id, { email: 'pool@example.com', password: 'Secret123!' });
      assert.deepEqual((await fauxth.users(pool.id)).map((u) => u.id), [user.id]);
      assert.ok((await fauxth.users('default')).every((u) => u.email !== 'pool@example.com'));
      assert.deepEqual((await fauxth.users(null, { q: 'pool@example.com' })).map((u) => [u.tenant, u.id]), [[pool.id, user.id]]);
    });
    await assert.rejects(fauxth.users(id), (error) => error.status === 404 && error.code === 'tenant_not_found');
  });

  test('named snapshots restore a state; reset forgets it', async () => {
    await signUp(fauxth, 'kept@example.com');
    await fauxth.snapshot('with-kept');
    await fauxth.reset();
    assert.deepEqual(await fauxth.users('default', { email: 'kept@example.com' }), []);
    await fauxth.restore('with-kept');
    assert.deepEqual((await fauxth.users('default', { email: 'kept@example.com' })).map((u) => u.email), ['kept@example.com']);
    // One tenant alone: a project made since keeps its users.
    await fauxth.withTenant('supabase', async (project) => {
      await fauxth.createUser(project.id, { email: 'other@example.com', password: 'secret123' });
      await fauxth.reset({ tenant: 'default' });
      await fauxth.restore('with-kept', { tenant: 'default' });
      assert.equal((await fauxth.users('default', { email: 'kept@example.com' })).length, 1);
      assert.equal((await fauxth.users(project.id)).length, 1);
    });
    assert.equal((await fauxth.messages({ to: 'kept@example.com' })).length, 1);
  });

  test('a deep link the app would have been opened with is waited for', async () => {
    const authorize = '/_emu/idp/google/authorize?client_id=c&redirect_uri=myapp%3A%2F%2Fcb&response_type=code&state=s1'
      + '&fauxth_account=alice@example.com';
    const redirect = await fetch(fauxth.url + authorize, { redirect: 'manual' });
    const link = await fauxth.waitForDeepLink({ scheme: 'myapp' });
    assert.equal(link.url, redirect.headers.get('location'));
    assert.equal(link.params.state, 's1');
    assert.equal((await fauxth.deepLinks({ scheme: 'myapp' }))[0].id, link.id);
  });
});

test('a missing binary is named', async () => {
  await assert.rejects(Fauxth.start({ binary: '/nonexistent/fauxth' }), /no fauxth binary at \/nonexistent\/fauxth/);
});

test('a server that cannot start is reported with its status and what it said', async () => {
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const seed = join(await mkdtemp(join(tmpdir(), 'fauxth-')), 'seed.json');
  await writeFile(seed, '{"tenants": [{"id": "p", "dialect": "firebase", "api_kyes": ["k"]}]}');
  await assert.rejects(Fauxth.start({ args: ['--seed', seed], readyTimeout: 300_000 }),
    /fauxth exited \(status 2\) before it was ready; stderr: .*api_kyes/s);
});

test('a server that writes much on stderr is read as it writes, its end kept', async () => {
  // 1.8 MB on stderr before the server starts: unread, the shell's write would block and no ready line would come.
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const chatty = join(await mkdtemp(join(tmpdir(), 'fauxth-')), 'chatty-fauxth');
  await writeFile(chatty, `#!/bin/sh\nyes "a line on stderr" | head -n 100000 >&2\nexec "${process.env.FAUXTH_BIN}" "$@"\n`, { mode: 0o755 });
  const fauxth = await Fauxth.start({ binary: chatty, args: ['--clock', 'frozen'], readyTimeout: 20_000 });
  assert.equal((await fauxth.health()).status, 'ok');
  await fauxth.stop();
  assert.ok(fauxth.stderr.endsWith('a line on stderr\n'));
  assert.equal(fauxth.stderr.length, 256 * 1024);
});

test('lines keeps the newest of the event log', async () => {
  const fauxth = await Fauxth.start({ args: ['--clock', 'frozen'], linesKept: 3 });
  try {
    for (const name of 'abcdef') assert.equal((await signUp(fauxth, `${name}@example.com`)).status, 200);
    await fauxth.waitForMessage({ to: 'f@example.com' });
    const deadline = Date.now() + 10_000;
    while (!fauxth.lines.some((line) => line.includes('f@example.com'))) {
      assert.ok(Date.now() < deadline, fauxth.lines.join('\n'));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Six sign-ups log a dozen lines: the first ones went, the newest stayed.
    assert.equal(fauxth.lines.length, 3);
    assert.ok(!fauxth.lines.some((line) => line.includes('a@example.com')));
  } finally {
    await fauxth.stop();
  }
});

test('stop ends the process it started', async () => {
  const fauxth = await Fauxth.start({ args: ['--log-format', 'json'] });
  assert.match(fauxth.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  await fauxth.stop();
  assert.notEqual(fauxth.process.exitCode ?? fauxth.process.signalCode, null);
  await assert.rejects(fetch(`${fauxth.url}/_emu/v1/health`));
});
