// The points where an outside client written from docs/protocol.md alone once found the
// server doing something else (issue 31 §5), checked from the document by a Node.js client:
// `ws`, `@msgpack/msgpack` and Node's own Ed25519, nothing of the project's. The server is
// a `gother serve --tournament-password night` with bots that move at once. Prints one
// JSON line of the points checked; a broken one exits 1 with the reason.
//
//   node points.mjs ws://127.0.0.1:PORT

import { generateKeyPairSync, sign } from "node:crypto";
import http from "node:http";
import { decode, encode } from "@msgpack/msgpack";
import WebSocket from "ws";

const [url] = process.argv.slice(2);
const TIMEOUT = 20_000;
const checked = [];

function check(ok, what) {
  if (!ok) throw new Error(what);
}

class Client {
  constructor(ws) {
    this.ws = ws;
    this.rid = 0;
    this.frames = [];
    this.waiting = new Map();
    this.changed = () => {};
    ws.on("message", (data) => {
      const frame = decode(data, { useBigInt64: true });
      this.frames.push(frame);
      if (frame.rid !== undefined && this.waiting.has(frame.rid)) {
        this.waiting.get(frame.rid)(frame);
        this.waiting.delete(frame.rid);
      }
      this.changed();
    });
  }

  static async open(name, fields = {}) {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 65_536 });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const client = new Client(ws);
    if (name !== undefined) {
      const welcome = await client.ask("hello", { v: 1, name, ...fields });
      check(welcome.t === "welcome", `hello ${name}: ${JSON.stringify(welcome)}`);
      client.welcome = welcome;
    }
    return client;
  }

  // Every request is answered by one frame carrying its rid: its reply or an error.
  async ask(t, fields = {}) {
    const rid = ++this.rid;
    let timer;
    const reply = new Promise((resolve, reject) => {
      this.waiting.set(rid, resolve);
      timer = setTimeout(() => reject(new Error(`no reply to ${t} (rid ${rid})`)), TIMEOUT);
    });
    this.ws.send(encode({ t, rid, ...fields }));
    const frame = await reply;
    clearTimeout(timer);
    return frame;
  }

  async refused(code, t, fields = {}) {
    const reply = await this.ask(t, fields);
    check(reply.t === "error" && reply.code === code, `${t}: ${code}? ${JSON.stringify(reply)}`);
    return reply;
  }

  // The first frame from index `from` on that `wanted` holds of.
  async wait(wanted, from = 0) {
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      const found = this.frames.slice(from).find(wanted);
      if (found) return found;
      check(Date.now() < deadline, "a frame never came");
      await new Promise((resolve) => {
        this.changed = resolve;
        setTimeout(resolve, 500);
      });
    }
  }

  close() {
    this.ws.close();
  }
}

function moveFor(legal) {
  switch (legal.kind) {
    case "discard_fate":
    case "discard_hand":
      return { kind: legal.kind, card: legal.cards[0] };
    case "distribute":
      return {
        kind: legal.kind,
        give: legal.hand.slice(0, legal.count).map((card, i) => [legal.recipients[i], card]),
      };
    default:
      return legal.deck
        ? { kind: "draw", source: "deck" }
        : { kind: "draw", source: "discard", card: legal.discard[0] };
  }
}

async function playToEnd(client, table) {
  const ours = (f) =>
    f.t === "state" && f.view.table.id === table && (f.view.phase === "over" || f.view.legal);
  let from = 0;
  for (;;) {
    const state = await client.wait(ours, from);
    from = client.frames.indexOf(state) + 1;
    if (state.view.phase === "over") return state.view;
    if (client.frames.slice(from).some(ours)) continue; // a newer one waits
    const reply = await client.ask("move", { move: moveFor(state.view.legal) });
    check(reply.t === "state", `move: ${JSON.stringify(reply)}`);
  }
}

function healthz() {
  const { hostname, port } = new URL(url.replace("ws:", "http:"));
  return new Promise((resolve, reject) => {
    http.get({ hostname, port, path: "/healthz" }, (res) => {
      let body = "";
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve(JSON.parse(body)));
    }).on("error", reject);
  });
}

function ed25519() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return { raw, privateKey };
}

async function main() {
  // proven always says seats; a key that is no point of the curve is refused at hello
  const key = ed25519();
  const owner = await Client.open("Owner", { key: key.raw });
  const message = Buffer.concat([Buffer.from("gother prove v1\n"), owner.welcome.challenge]);
  const proven = await owner.ask("prove", { signature: sign(null, message, key.privateKey) });
  check(proven.t === "proven" && Array.isArray(proven.seats) && proven.seats.length === 0,
    `proven with no seat: ${JSON.stringify(proven)}`);
  checked.push("proven.seats");
  const stranger = await Client.open();
  await stranger.refused("bad_message", "hello", { v: 1, name: "Stranger", key: Buffer.alloc(32, 107) });
  checked.push("hello.key a point");

  // a table of bots and the owner, played out: the name is hers from then on
  const { table } = await owner.ask("create", { name: "Node Crypt", seats: 3, bots: 2,
    variants: { round_cap: 2 } });
  check((await owner.ask("join", { table })).t === "joined", "join");
  const final = await playToEnd(owner, table);
  check(final.winner.length > 0, "a game over has a winner");
  await stranger.refused("name_taken", "hello", { v: 1, name: "owner" });
  checked.push("hello name_taken");

  // a second watch of the table one sits at: cards []
  const again = await owner.ask("watch", { table });
  check(again.t === "watching" && again.cards.length === 0, "a watch that changes nothing");
  checked.push("watch cards []");

  // a newcomer to the finished game: its story, from the first turn (log_start 0)
  const wendy = await Client.open("Wendy");
  const watching = await wendy.ask("watch", { table });
  const from = wendy.frames.indexOf(watching);
  const state = await wendy.wait((f) => f.t === "state", from);
  const story = wendy.frames.slice(from, wendy.frames.indexOf(state)).filter((f) => f.t === "story");
  check(story.length > 0 && story[0].start === 0 && story[0].log[0].kind === "turn",
    "a finished game's story, from its first turn");
  checked.push("story of a game over", "log_start");

  // every seat's record, within a fresh connection's budget
  for (let seat = 0; seat < 3; seat += 1) {
    const first = await wendy.ask("record", { table, seat });
    check(first.t === "record", `seat ${seat}'s record: ${JSON.stringify(first)}`);
    for (let part = 1; part < Number(first.parts); part += 1) {
      const more = await wendy.ask("record", { table, seat, part });
      check(more.t === "record", `seat ${seat}'s record part ${part}: ${more.code}`);
    }
  }
  checked.push("seat records");

  // no_such_table for finished-game requests; play_on's first state is its position
  await wendy.refused("no_such_table", "record", { table: "never" });
  await wendy.refused("no_such_table", "review", { table: "never", seat: 0 });
  await wendy.refused("no_such_table", "play_on", { table: "never", seat: 0, turn: 1 });
  checked.push("no_such_table");
  const mark = owner.frames.length;
  const joined = await owner.ask("play_on", { table, seat: 0, turn: 2 });
  check(joined.t === "joined", `play_on: ${JSON.stringify(joined)}`);
  const first = await owner.wait((f) => f.t === "state", mark);
  check(first.view.table.id === joined.table && first.view.phase !== "lobby",
    "a played-on table's first state is its position");
  checked.push("play_on state");

  // standings: a reference bot's sigma is 1; offset's range
  const standings = await wendy.ask("standings", {});
  const references = standings.rows.filter((row) => row.reference);
  check(references.length > 0 && references.every((row) => row.sigma === 1), "reference sigma");
  const empty = await wendy.ask("standings", { offset: 1_000_000 });
  check(empty.t === "standings" && empty.rows.length === 0, "standings past the end");
  await wendy.refused("bad_message", "standings", { offset: 1_000_001 });
  checked.push("standings");

  // tournament_create without password: wrong_password, as hello's
  await wendy.refused("wrong_password", "tournament_create", { name: "Night", rounds: 1, seats: 3 });
  checked.push("tournament_create password");

  // /healthz moves: every move, the bots' too
  const parts = [];
  for (let part = 0, count = 1; part < count; part += 1) {
    const reply = await wendy.ask("record", { table, part });
    count = Number(reply.parts);
    parts.push(Buffer.from(reply.data));
  }
  const made = decode(Buffer.concat(parts), { useBigInt64: true }).moves.length;
  const health = await healthz();
  check(Number(health.moves) >= made, `healthz moves ${health.moves}, the game alone ${made}`);
  checked.push("healthz moves");

  for (const client of [owner, stranger, wendy]) client.close();
  console.log(JSON.stringify({ checked }));
}

main().catch((error) => {
  console.error(`points failed: ${error.message}`);
  process.exit(1);
});
