// A game of Gother's shape for boardgame.io: 4 seats, 55 cards, hands and the draw pile
// secret (a player view strips them, as our one redaction point does), each move one
// card from the hand onto someone's Fate pile and one card drawn back. Not Gother's rules:
// the same amount of state and the same fan-out per move, for a CPU comparison.
const CARDS = 55;
const HAND = 5;

function secretFree(G, playerID) {
  const hands = {};
  for (const [seat, hand] of Object.entries(G.hands)) {
    hands[seat] = seat === playerID ? hand : hand.length;
  }
  return { ...G, hands, deck: G.deck.length };
}

const GotherShape = {
  name: 'gother',
  setup: ({ ctx, random }) => {
    const deck = random.Shuffle([...Array(CARDS).keys()]);
    const hands = {};
    const fate = {};
    for (let seat = 0; seat < ctx.numPlayers; seat++) {
      hands[seat] = deck.splice(0, HAND);
      fate[seat] = [];
    }
    return { deck, hands, fate, discard: [], moves: 0 };
  },
  moves: {
    play: ({ G, ctx, random }, card, to) => {
      const hand = G.hands[ctx.currentPlayer];
      const at = hand.indexOf(card);
      if (at < 0 || !(to in G.fate)) return 'INVALID_MOVE';
      hand.splice(at, 1);
      G.fate[to].push(card);
      if (G.fate[to].length > 6) G.discard.push(...G.fate[to].splice(0, 3)); // a swoon
      if (G.deck.length === 0) G.deck = random.Shuffle(G.discard.splice(0));
      if (G.deck.length > 0) hand.push(G.deck.pop());
      G.moves += 1;
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
  playerView: ({ G, playerID }) => secretFree(G, playerID),
};

module.exports = { GotherShape };
