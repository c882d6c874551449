// The load shape of bench/server_load.py against the boardgame.io server: TABLES matches of
// 4 seats, each seat a client of its own over socket.io, each making its move THINK seconds
// (x0.5-1.5) after its turn begins, until the match has made MOVES moves.
//   node driver.js PORT TABLES MOVES THINK   -> prints one JSON line {moves, errors, seconds}
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { GotherShape } = require('./game');

const [port, tables, moves, think] = process.argv.slice(2).map(Number);
const server = `http://127.0.0.1:${port}`;
const lobby = `http://127.0.0.1:${port + 1}`;

async function createMatch() {
  const reply = await fetch(`${lobby}/games/gother/create`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ numPlayers: 4 }),
  });
  return (await reply.json()).matchID;
}

function seat(matchID, playerID, tally) {
  return new Promise((resolve) => {
    const client = Client({
      game: GotherShape,
      numPlayers: 4,
      matchID,
      playerID: String(playerID),
      multiplayer: SocketIO({ server }),
      debug: false,
    });
    let movedIn = -1; // the turn this seat last moved in: one move a turn
    let done = false;
    client.subscribe((state) => {
      if (state === null || done || !state.isConnected) return; // not yet the server's
      if (state.G.moves >= moves) {
        done = true; // the client stays connected: its last move may still be on its way
        resolve();
        return;
      }
      if (state.ctx.currentPlayer !== String(playerID) || movedIn === state.ctx.turn) return;
      movedIn = state.ctx.turn;
      const delay = Math.max(5, think * 1000 * (0.5 + Math.random()));
      setTimeout(() => {
        const now = client.getState(); // the newest, which the server may have changed
        if (now.ctx.currentPlayer !== String(playerID) || now.ctx.turn !== movedIn) return;
        const hand = now.G.hands[String(playerID)];
        const to = String(Math.floor(Math.random() * 4));
        tally.moves += 1;
        client.moves.play(hand[0], to);
      }, delay);
    });
    client.start();
  });
}

(async () => {
  const tally = { moves: 0, errors: 0 };
  const matches = [];
  for (let i = 0; i < tables; i++) matches.push(await createMatch());
  const started = Date.now();
  await Promise.all(matches.flatMap((m) => [0, 1, 2, 3].map((p) => seat(m, p, tally))));
  console.log(JSON.stringify({ ...tally, seconds: (Date.now() - started) / 1000 }));
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
