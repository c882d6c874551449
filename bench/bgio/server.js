// boardgame.io 0.50.2's server for the comparison: node server.js PORT [DIR]
// With DIR, matches are kept with boardgame.io's own FlatFile storage (persistence on).
const { Server, Origins, FlatFile } = require('boardgame.io/server');
const { GotherShape } = require('./game');

const port = Number(process.argv[2] || 0);
const dir = process.argv[3];
const server = Server({
  games: [GotherShape],
  origins: [Origins.LOCALHOST],
  ...(dir ? { db: new FlatFile({ dir, logging: false }) } : {}),
});
server.run({ port, lobbyConfig: { apiPort: port + 1 } }, () => {
  console.log(`listening on ${port} (lobby ${port + 1})`);
});
