// A Gother bot in Node.js, written from docs/protocol.md alone (issue 19.5): `ws` and
// `@msgpack/msgpack`, nothing of the project's. It plays GAMES whole games against bots at
// one table (a rematch after each), checks on the way that every request is answered with
// its rid, that every integer the server sends is exact as a JavaScript number, that the
// view keeps its promises and that the record is the documented map, and prints one JSON
// line of what it did. Any broken promise exits 1 with the reason.
//
//   node probe.mjs ws://127.0.0.1:PORT [GAMES]

import { decode, encode } from "@msgpack/msgpack";
import WebSocket from "ws";

const [url, games = "2"] = process.argv.slice(2);
const TIMEOUT = 20_000; // ms for any one awaited reply
const MAX_FRAME = 65_536;
const REPLIES = {
  hello: "welcome", list: "tables", create: "created", join: "joined", chat: "chat",
  move: "state", rematch: "state", record: "record",
};

function check(ok, what) {
  if (!ok) throw new Error(what);
}

// 64-bit integers arrive as BigInt; the document promises each fits a JS number exactly.
function exact(value, where = "frame") {
  if (typeof value === "bigint") {
    check(value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER),
      `${where}: ${value} does not fit a JavaScript number`);
    return Number(value);
  }
  if (Array.isArray(value)) return value.map((v, i) => exact(v, `${where}[${i}]`));
  if (value instanceof Uint8Array || value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exact(v, `${where}.${k}`)]));
}

class Probe {
  constructor(ws) {
    this.ws = ws;
    this.rid = 0;
    this.waiting = new Map(); // rid -> resolve
    this.views = new Map(); // table id -> newest view
    this.cards = new Map(); // id -> card
    this.changed = () => {};
    this.asked = 0;
    this.answered = 0;
    ws.on("message", (data, binary) => this.receive(data, binary));
  }

  receive(data, binary) {
    check(binary, "the server sent a text frame");
    const frame = exact(decode(data, { useBigInt64: true }));
    check(typeof frame.t === "string", "a frame without a string t");
    if (frame.t === "joined") for (const card of frame.cards) this.cards.set(card.id, card);
    if (frame.t === "state") {
      checkView(frame.view, this.cards);
      this.views.set(frame.view.table.id, frame.view);
    }
    if (frame.rid !== undefined && this.waiting.has(frame.rid)) {
      this.waiting.get(frame.rid)(frame);
      this.waiting.delete(frame.rid);
    }
    this.changed();
  }

  async ask(t, fields = {}, tries = 0) {
    const rid = ++this.rid;
    this.asked += 1;
    let timer;
    const reply = new Promise((resolve, reject) => {
      this.waiting.set(rid, resolve);
      timer = setTimeout(() => reject(new Error(`no reply to ${t} (rid ${rid})`)), TIMEOUT);
    });
    this.ws.send(encode({ t, rid, ...fields }));
    const frame = await reply;
    clearTimeout(timer);
    check(frame.t === REPLIES[t] || frame.t === "error", `${t} answered by ${frame.t}`);
    this.answered += 1;
    if (frame.t === "error" && frame.code === "rate_limited" && tries < 10) {
      // docs/protocol.md, Server policies: a request over a budget is dropped and the budget
      // refills (dear ones: 20 units a second), so ask again in a moment
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return this.ask(t, fields, tries + 1);
    }
    check(frame.t !== "error", `${t} refused: ${frame.code}: ${frame.message}`);
    return frame;
  }

  // The newest view of `table` once `wanted` holds of it.
  async view(table, wanted) {
    const deadline = Date.now() + TIMEOUT;
    for (;;) {
      const view = this.views.get(table);
      if (view && wanted(view)) return view;
      check(Date.now() < deadline, `no wanted view of ${table}`);
      await new Promise((resolve) => {
        this.changed = resolve;
        setTimeout(resolve, 1000); // look again at least every second
      });
    }
  }
}

function checkView(view, cards) {
  for (const player of view.players) {
    const sum = (key) => player.fate.reduce((total, id) => total + cards.get(id)[key], 0);
    check(player.scores.goth === sum("goth"), "goth is not the sum of the Fate pile (R5)");
    check(player.scores.money === sum("money"), "money is not the sum of the Fate pile (R5)");
    check(player.scores.sickness === Math.max(0, sum("sickness")), "sickness not floored (R6)");
    check(player.hand_limit === 5 - player.scores.sickness, "hand limit (R8)");
  }
  if (view.you) {
    check(view.you.hand.length === view.players[view.you.seat].hand_count, "hand count");
  }
  if (view.phase === "over") {
    check(Number.isSafeInteger(view.reveal.seed), "the seed is not exact");
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

async function playGame(probe, table, game) {
  const ours = (v) => v.table.game === game && (v.phase === "over" || v.legal !== null);
  let view = await probe.view(table, ours);
  let moves = 0;
  while (view.phase !== "over") {
    const reply = await probe.ask("move", { move: moveFor(view.legal) });
    check(reply.view.table.id === table, "a move answered by another table's state");
    moves += 1;
    view = await probe.view(table, ours);
  }
  check(view.winner.length > 0, "a game over without a winner");
  return moves;
}

async function record(probe, table, game) {
  const parts = [];
  let part = 0;
  let count = 1;
  while (part < count) {
    const reply = await probe.ask("record", { table, game, part });
    count = reply.parts;
    parts.push(reply.data);
    part += 1;
  }
  const joined = Buffer.concat(parts.map((p) => Buffer.from(p)));
  const rec = exact(decode(joined, { useBigInt64: true }), "record");
  const keys = ["record", "table", "variants", "players", "cards", "seed", "game", "moves",
    "chat", "ended", "views"];
  check(JSON.stringify(Object.keys(rec).sort()) === JSON.stringify(keys.sort()), "record keys");
  check(rec.views.length === rec.moves.length + 1, "a view after the deal and after each move");
  check(rec.views.at(-1).phase === "over", "the record of a game not over");
  return rec;
}

async function main() {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: MAX_FRAME });
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  const probe = new Probe(ws);
  const welcome = await probe.ask("hello", { v: 1, name: "Nodeling" });
  check(welcome.v === 1, "welcome.v");
  const { table } = await probe.ask("create", { name: "Node Crypt", seats: 3, bots: 2 });
  const joined = await probe.ask("join", { table });
  check(joined.seat === 0 && joined.token.length >= 16, "joined");
  const said = await probe.ask("chat", { text: "evening, all" });
  check(said.table === table && said.from === "Nodeling", "the speaker's chat copy");
  let moves = 0;
  const seeds = [];
  for (let game = 1; game <= Number(games); game += 1) {
    if (game > 1) {
      const dealt = await probe.ask("rematch");
      check(dealt.view.table.game === game, "a rematch deals the next game");
    }
    moves += await playGame(probe, table, game);
    const rec = await record(probe, table, game);
    check(rec.seed === probe.views.get(table).reveal.seed, "the record's seed is the reveal's");
    seeds.push(rec.seed);
  }
  const listing = await probe.ask("list");
  check(listing.tables.some((row) => row.id === table), "our table in the list");
  ws.close();
  console.log(JSON.stringify({
    games: Number(games), moves, asked: probe.asked, answered: probe.answered, seeds,
  }));
}

main().catch((error) => {
  console.error(`probe failed: ${error.message}`);
  process.exit(1);
});
