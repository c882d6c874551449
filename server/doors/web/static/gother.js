// The browser's side of the web door: one xterm.js terminal, whose keys go to this tab's
// client process and whose screen comes back from it, through the door's websocket (the
// envelopes of textual-serve: ["stdin", keys], ["resize", {width, height}], ["focus"],
// ["blur"]; the screen as binary frames). Nothing is fetched from any other host.
"use strict";

const FONT = '"Gother Mono", monospace'; // DejaVu Sans Mono, served by the door (gother.css)
const LARGEST = 16; // font size in px, made smaller until 80x24 cells fit the window
const SMALLEST = 6;
const NEEDS = { cols: 80, rows: 24 }; // the client's smallest table

const element = document.getElementById("terminal");
const terminal = new Terminal({
  allowProposedApi: true, // the unicode11 widths, as Textual measures them
  fontFamily: FONT,
  fontSize: LARGEST,
  scrollback: 0,
  cursorBlink: false,
  theme: { background: "#000000" },
});
const fit = new FitAddon.FitAddon();
window.gotherTerminal = terminal; // the screen, readable from the page (tests read it here)
let socket = null;

function send(envelope) {
  if (socket !== null && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(envelope));
  }
}

function fitFont() {
  // Largest font size at which the table's 80x24 still fits; then fill the window.
  for (let size = LARGEST; size >= SMALLEST; size--) {
    terminal.options.fontSize = size;
    const cells = fit.proposeDimensions();
    if (cells && cells.cols >= NEEDS.cols && cells.rows >= NEEDS.rows) break;
  }
  fit.fit();
}

function ended(why) {
  terminal.options.disableStdin = true;
  document.getElementById("ended-why").textContent = why || "The session ended.";
  document.getElementById("ended").hidden = false;
  document.getElementById("again").focus();
}

function connect() {
  const url = new URL("ws", window.location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("width", terminal.cols);
  url.searchParams.set("height", terminal.rows);
  socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  socket.addEventListener("open", () => {
    // What the client missed while the socket opened: the size, and the focus (the
    // terminal takes it on load; a Textual app that thinks it is blurred shows no footer).
    send(["resize", { width: terminal.cols, height: terminal.rows }]);
    send([document.activeElement === terminal.textarea ? "focus" : "blur"]);
  });
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") terminal.write(new Uint8Array(event.data));
  });
  socket.addEventListener("close", (event) => ended(event.reason));
}

async function start() {
  await Promise.all([
    document.fonts.load(`${LARGEST}px ${FONT}`, "☠☥"),
    document.fonts.load(`bold ${LARGEST}px ${FONT}`, "☠☥"),
  ]); // cells are measured on the font the screen is drawn in, not on a fallback
  terminal.loadAddon(fit);
  terminal.loadAddon(new Unicode11Addon.Unicode11Addon());
  terminal.unicode.activeVersion = "11";
  terminal.open(element);
  fitFont();
  terminal.onData((keys) => send(["stdin", keys]));
  terminal.onResize(({ cols, rows }) => send(["resize", { width: cols, height: rows }]));
  terminal.textarea.addEventListener("focus", () => send(["focus"]));
  terminal.textarea.addEventListener("blur", () => send(["blur"]));
  window.addEventListener("resize", fitFont);
  document.getElementById("again").addEventListener("click", () => window.location.reload());
  connect();
  terminal.focus(); // keys work at once, without a click on the page first
}

start();
