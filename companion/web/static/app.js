// The live page: one document from the companion (same over the stream and the polling API),
// drawn as it comes; clocks count down here between documents. Plain JS, no build step.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const CELL = 40;
const MARGIN = 22;
const POLL_MS = 2000;

const PREMIUM_FILL = { TW: "#c0392b", DW: "#f4b6c2", TL: "#1f5fa8", DL: "#a9d2f0" };
const PREMIUM_TEXT = { TW: "#ffffff", DW: "#5b1a28", TL: "#ffffff", DL: "#123e5e" };
const PLAIN_FILL = "#d9d4bf";
const SET_FILL = { null: "#f3e2b3", ivory: "#f3e2b3", white: "#fafafa", black: "#2b2b2b", red: "#e57373", blue: "#81a9e0", green: "#8fce8f", yellow: "#f1d264", wood: "#cda674", pink: "#ec9eb2" };

let doc = null;          // the last document drawn
let anchorServer = 0;    // the server's time (ms) ...
let anchorLocal = 0;     // ... at this local moment (performance.now())
let csrf = null;
let admin = false;
let source = null;
let pollTimer = null;

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// --- time ----------------------------------------------------------------------------------

function serverNow() {
  return anchorServer + (performance.now() - anchorLocal);
}

function setServerTime(ms) {
  anchorServer = ms;
  anchorLocal = performance.now();
}

// As the clock engine's format_ms: 25:00, 0:07, -1:01, 1:30:00; whole seconds towards zero.
function formatMs(ms) {
  const sign = ms < 0 ? "-" : "";
  const s = Math.floor(Math.abs(ms) / 1000);
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  const pad = (n) => String(n).padStart(2, "0");
  return h ? `${sign}${h}:${pad(m)}:${pad(sec)}` : `${sign}${m}:${pad(sec)}`;
}

function remainingMs(player) {
  const c = player.clock;
  if (!c) return null;
  let ms = c.remaining_ms;
  // Two clocks (Scrabble House): each player's own "running" says whose time runs.
  const runs = c.running !== undefined ? c.running : doc.clock.running && doc.clock.on_move === player.index;
  if (runs) {
    // A stopwatch (the dungeon's) counts up; a clock counts down.
    ms += (c.stopwatch ? 1 : -1) * Math.max(0, serverNow() - doc.server_time);
  }
  return ms;
}

function drawClocks() {
  if (!doc) return;
  for (const p of doc.players) {
    const face = $(`clock-${p.index}`);
    if (!face) continue;
    const ms = remainingMs(p);
    if (ms === null) { face.textContent = "–"; continue; }
    face.textContent = formatMs(ms);
    face.classList.toggle("overtime", ms < 0);
  }
}

// --- drawing -------------------------------------------------------------------------------

function render(next) {
  doc = next;
  $("title").textContent = `${doc.game.title}`;
  drawPlayers();
  drawStatus();
  drawQuestion();
  drawTurn();
  drawComputer();
  drawChallenge();
  drawRacks();
  drawBoard();
  drawHouse();
  drawLastMove();
  drawVerdicts();
  drawHistory();
  drawAdminChoices();
  drawDungeon();
  drawStacking();
  drawActions();
  drawClocks();
  drawBoardText();
  drawPool();
  drawReview();
  drawPresses();
  announceNewest();
  document.body.dataset.version = String(doc.version);
}

// --- for screen readers ----------------------------------------------------------------------
// The board as text, a row a line (the SVG is hidden from them: one image, a run of letters);
// the newest verdict alone is read out, once.

function boardRows(b) {
  const rows = [];
  for (let r = 0; r < b.rows; r++) rows.push([]);
  for (const sq of b.squares) {
    let what = "";
    if (sq.kind === "tile") what = sq.blank ? `blank as ${sq.letter}` : sq.letter;
    else if (sq.kind === "back") what = "a tile face down";
    else if (sq.token) what = "a token";
    if (what) rows[sq.row].push(`${squareName(sq.row, sq.col)} ${what}`);
  }
  return rows.map((items, r) => `Row ${r + 1}: ${items.length ? items.join(", ") : "empty"}`);
}

function drawBoardText() {
  const box = $("board-text");
  box.replaceChildren();
  for (const b of (doc.boards && doc.boards.length ? doc.boards : [doc.board])) {
    box.append(el("h2", {}, b.title || "The board"));
    const list = el("ol", { class: "board-rows" });
    for (const line of boardRows(b)) list.append(el("li", {}, line));
    box.append(list);
  }
}

let announced = null;
function announceNewest() {
  const newest = doc.verdicts[0];
  const key = newest ? `${doc.epoch}:${newest.id}:${newest.message}` : null;
  if (key === announced) return;
  const first = announced === null;
  announced = key;
  if (!first && newest) $("announce").textContent = newest.message;  // not the history on opening
}

function drawPlayers() {
  const box = $("players");
  box.replaceChildren();
  for (const p of doc.players) {
    const card = el("article", { class: "player" + (p.on_move ? " on-move" : "") + (p.winner ? " winner" : ""),
                                 "aria-label": `${p.name}: ${p.score} points${p.on_move ? ", to play" : ""}` });
    const name = el("h2", { class: "name" }, p.name);
    if (p.on_move) name.append(el("span", { class: "turn", "aria-hidden": "true" }, " ▶"));
    card.append(name);
    if (p.score !== null) card.append(el("div", { class: "score", id: `score-${p.index}` }, String(p.score)));
    const clock = el("div", { class: "clock", id: `clock-${p.index}`, role: "timer", "aria-label": `${p.name}'s clock` });
    card.append(clock);
    const notes = [];
    if (p.clock && p.clock.penalty) notes.push(`−${p.clock.penalty} overtime`);
    if (p.clock && p.clock.lost) notes.push("lost on time");
    if (p.own_tiles !== undefined) {
      notes.push(`board ${p.board + 1}, ${p.seat}`);
      notes.push(`${p.own_tiles} own tiles` + (p.bonus ? `, bonus ${p.bonus}` : ""));
    } else if (p.next_price !== undefined) {
      // The stacking game: the companion deals, so each rack is told (rainbow tiles named).
      notes.push(`rack ${p.rack || "empty"}` + (p.rainbows ? ` (rainbow ${p.rainbows})` : ""));
      notes.push(`${p.purchases} bought, next ${p.next_price}`);
      if (p.conceded) notes.push("conceded");
    } else if (p.rack !== null) notes.push(`rack ${p.rack || "empty"} (${p.end_adjustment >= 0 ? "+" : ""}${p.end_adjustment})`);
    else notes.push(`${p.rack_size} tiles`);
    if (p.ppt !== undefined) notes.push(`PPT ${p.ppt}`);
    if (p.winner) notes.push("wins");
    card.append(el("div", { class: "note" }, notes.join(" · ")));
    box.append(card);
  }
}

function drawStatus() {
  const g = doc.game, c = doc.clock;
  const parts = [];
  if (g.over) parts.push(g.result ? `Game over: ${g.result}` : "Game over");
  if (g.adjourned) parts.push("adjourned");
  else if (g.to_move !== null) parts.push(`${doc.players[g.to_move].name} to play`);
  else if (g.on_move) parts.push(g.on_move.map((i) => `${doc.players[i].name} to play`).join(", "));
  if (g.reason) parts.push(g.reason);
  if (g.awaiting_racks) parts.push("tell the companion the racks left");
  if (g.pending) parts.push(`${g.pending.words.join("/")} can still be challenged`);
  if (c.paused) parts.push("clock paused");
  else if (!c.started && c.control !== "no clock" && !g.over) parts.push("clock not started");
  parts.push(`bag ${g.bag}`);
  parts.push(c.control);
  // What the game offers is the registry's word (options.capabilities), not its name's.
  const can = (doc.options && doc.options.capabilities) || {};
  if (can.challenge && g.challenge) parts.push(`challenge ${g.challenge}`);
  if (can.tilesets && g.tileset) parts.push(`tiles ${g.tileset}`);
  const next = doc.configured;
  if (next) {
    const s = next.settings || {};
    const said = [next.title, s.control, s.challenge && `challenge ${s.challenge}`, s.tileset && `tiles ${s.tileset}`]
      .filter(Boolean).join(", ");
    parts.push(`the configuration asks for the next game: ${said}`);
  }
  $("status").textContent = parts.join(" · ");
}

function squareName(r, c) {
  return String.fromCharCode(65 + c) + (r + 1);
}

function tileFill(sq) {
  if (sq.rgb) return `rgb(${sq.rgb[0]},${sq.rgb[1]},${sq.rgb[2]})`;
  return SET_FILL[sq.set] || SET_FILL.null;
}

function inkFor(fill) {
  // Dark ink on a light body, light ink on a dark one (contrast).
  const m = fill.match(/\d+/g);
  let r, g, b;
  if (fill.startsWith("#")) { r = parseInt(fill.slice(1, 3), 16); g = parseInt(fill.slice(3, 5), 16); b = parseInt(fill.slice(5, 7), 16); }
  else if (m) { [r, g, b] = m.map(Number); }
  else return "#1a1a1a";
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? "#1a1a1a" : "#fafafa";
}

function drawBoard() {
  if (viewing !== null && !(doc.history[viewing] && doc.history[viewing].tiles)) viewing = null;
  const b = viewing === null ? doc.board : boardAfter(viewing);
  drawBoardInto(b, $("board"), $("board-title"));
  const caption = $("board-caption");
  caption.hidden = !b.title;
  caption.textContent = b.title ? (viewing === null ? b.title : `${b.title} (tap it again for now)`) : "";
  document.body.classList.toggle("viewing-past", viewing !== null);
  fitBoard();
}

// On a screen wider than tall the board is as tall as the screen less what stands above it
// (the title bar, the caption): the style sheet reads that height here.
function fitBoard() {
  const above = $("title").parentElement.offsetHeight + ($("board-caption").hidden ? 0 : $("board-caption").offsetHeight + 8);
  document.documentElement.style.setProperty("--bar-h", `${above}px`);
}

function drawBoardInto(b, board, title) {
  const labelled = !!(b.preview && b.preview.label);
  const w = MARGIN + b.cols * CELL + 2, h = MARGIN + b.rows * CELL + 2 + (labelled ? 20 : 0);
  board.setAttribute("viewBox", `0 0 ${w} ${h}`);
  // Its shape, for a board fitted to the screen's height (a laptop, the venue view).
  board.style.aspectRatio = `${w} / ${h}`;
  board.replaceChildren(title);
  const tiles = b.squares.filter((s) => s.kind === "tile").length;
  title.textContent = `${b.title || "The board"}, ${b.rows} by ${b.cols}: ${tiles} tiles`;

  for (let c = 0; c < b.cols; c++) {
    board.append(svg("text", { x: MARGIN + c * CELL + CELL / 2, y: 15, class: "coord", "text-anchor": "middle" }, String.fromCharCode(65 + c)));
  }
  for (let r = 0; r < b.rows; r++) {
    board.append(svg("text", { x: MARGIN - 4, y: MARGIN + r * CELL + CELL / 2 + 4, class: "coord", "text-anchor": "end" }, String(r + 1)));
  }
  const grid = svg("g", { "aria-hidden": "true" });
  for (let r = 0; r < b.rows; r++) {
    for (let c = 0; c < b.cols; c++) {
      const x = MARGIN + c * CELL, y = MARGIN + r * CELL;
      const kind = b.legend[b.premiums[r][c]] || null;
      grid.append(svg("rect", { x, y, width: CELL, height: CELL, fill: kind ? PREMIUM_FILL[kind] : PLAIN_FILL, class: "sq" }));
      if (r === b.centre[0] && c === b.centre[1]) {
        grid.append(svg("text", { x: x + CELL / 2, y: y + CELL / 2 + 8, "text-anchor": "middle", class: "star", fill: PREMIUM_TEXT.DW }, "★"));
      } else if (kind) {
        grid.append(svg("text", { x: x + CELL / 2, y: y + CELL / 2 + 5, "text-anchor": "middle", class: "premium", fill: PREMIUM_TEXT[kind] }, kind));
      }
    }
  }
  board.append(grid);

  for (const sq of b.squares) board.append(drawSquare(sq));

  // Another game's preview over the tiles it is about (Scrabble House: a square turned to the
  // mover, a tile to take off): drawn above them, or the tiles would hide it.
  const preview = new Set((b.preview && b.preview.squares || []).map(([r, c]) => `${r},${c}`));
  const turned = new Set((b.preview && b.preview.turned || []).map(([r, c]) => `${r},${c}`));
  const removed = new Set((b.preview && b.preview.removed || []).map(([r, c]) => `${r},${c}`));
  for (const key of preview) {
    const [r, c] = key.split(",").map(Number);
    const turn = turned.has(key) && !removed.has(key);
    const mark = svg("rect", { x: MARGIN + c * CELL + 2, y: MARGIN + r * CELL + 2, width: CELL - 4, height: CELL - 4, rx: 4,
                               class: turn ? "preview turn" : "preview", "data-square": squareName(r, c) });
    mark.append(svg("title", {}, `${squareName(r, c)}: ${turn ? "turned to the mover" : "comes off"}`));
    board.append(mark);
  }

  for (const [r, c] of b.corrected) {
    board.append(svg("rect", { x: MARGIN + c * CELL + 1, y: MARGIN + r * CELL + 1, width: CELL - 2, height: CELL - 2, class: "corrected" }));
  }
  for (const [r, c] of b.asked || []) {
    board.append(svg("rect", { x: MARGIN + c * CELL + 1, y: MARGIN + r * CELL + 1, width: CELL - 2, height: CELL - 2, class: "asked", "data-square": squareName(r, c) }));
  }
  const lastClass = b.highlight_kind === "withdrawn" ? "last withdrawn" : "last";
  for (const [r, c] of b.highlight) {
    board.append(svg("rect", { x: MARGIN + c * CELL + 1.5, y: MARGIN + r * CELL + 1.5, width: CELL - 3, height: CELL - 3, class: lastClass, "data-square": squareName(r, c) }));
  }
  if (labelled) {
    board.append(svg("text", { x: w / 2, y: h - 5, class: "preview-label", "text-anchor": "middle" }, b.preview.label));
  }
  if (doc.dungeon) drawPlan(board, doc.dungeon.plan);
}

// The dungeon's plan on the board: every obstacle's squares outlined, its kind's mark in a corner
// (W wall, M monster, T treasure, F fixed letter), so the player lays it out square by square.
// Each mark a dark badge ringed in white with a white letter, each outline white under a dark
// dash: one of the two stands out on every square, light (plain, DL, DW, a tile) or dark (TW, TL).
const PLAN_BADGE = { fill: "#2a1242", ring: "#ffffff", ink: "#ffffff" };

function drawPlan(board, plan) {
  for (const o of plan.objects) {
    const mark = { wall: "W", monster: "M", treasure: "T", "fixed letter": "F" }[o.type];
    for (const q of o.squares) {
      const x = MARGIN + q.col * CELL, y = MARGIN + q.row * CELL;
      const g = svg("g", { class: `plan ${o.type.replace(" ", "-")}`, "data-plan": q.name });
      g.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, class: "plan-halo" }));
      g.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, class: "plan-box" }));
      g.append(svg("rect", { x: x + CELL - 26, y: y + 1, width: 25, height: 22, rx: 6, fill: PLAN_BADGE.fill,
                             stroke: PLAN_BADGE.ring, "stroke-width": 2, class: "plan-badge" }));
      g.append(svg("text", { x: x + CELL - 13.5, y: y + 18.5, "text-anchor": "middle", fill: PLAN_BADGE.ink,
                             class: "plan-mark" }, mark));
      g.append(svg("title", {}, `${q.name}: ${o.type}${o.orientation ? ` (${o.orientation})` : ""}, ` +
        `${o.face === "up" ? "face up" : "face down"}${o.token ? ", a token on it" : ""}`));
      board.append(g);
    }
  }
}

const PHASES = {
  "set-up": "Lay out the plan: walls and monsters face down, treasure face up, tokens on treasure and monsters; then press the button.",
  rack: "The set-up stands. Draw seven tiles and enter them below.",
  play: "Your move: lay a word and press the button. Refill or burn below.",
  over: "The game is over.",
};

function drawDungeon() {
  const d = doc.dungeon;
  $("dungeon").hidden = !d;
  if (!d) return;
  $("dungeon-phase").textContent = PHASES[d.phase] || d.phase;
  const facts = [];
  if (d.state) {
    facts.push(`score ${d.state.score}`, `rack ${d.state.rack || "?"}`, `bag ${d.state.bag}`);
    if (d.state.reveals) facts.push(`${d.state.reveals} reveal${d.state.reveals > 1 ? "s" : ""} banked`);
    if (d.state.result) facts.push(d.state.result);
  } else if (d.rack_entered) facts.push(`rack ${d.rack_entered}`);
  $("dungeon-facts").textContent = facts.join(" · ");
  const problems = $("dungeon-problems");
  problems.replaceChildren();
  for (const p of d.problems) problems.append(el("li", {}, p));
  const list = $("dungeon-plan");
  list.replaceChildren();
  for (const o of d.plan.objects) {
    const how = `${o.face === "up" ? "face up" : "face down"}${o.token ? ", token" : ""}`;
    const what = o.type + (o.orientation ? ` (${o.orientation}${o.edge ? ", edge" : ""})` : "");
    list.append(el("li", {}, `${what}: ${o.squares.map((q) => q.name).join(" ")}, ${how}`));
  }
  $("dungeon-counts").textContent = `${d.plan.counted} objects (${d.plan.asked} asked), ${d.plan.tiles} tiles`;
}

// The stacking game: the marketplace, each player's purchases and next price, the pool. A phone
// can be a player's own page (?player=2, or "This phone is" below the facts): a tap on a tile
// there buys it for that player (no PIN, on their turn, within their score: the server says
// why not in one line); elsewhere a tap sells to the player to move through the organiser's
// "buy" action.
function mySeat() {
  const n = Number(new URLSearchParams(location.search).get("player"));
  return Number.isInteger(n) && n >= 1 && n <= doc.players.length ? n - 1 : null;
}

function chooseSeat() {
  const url = new URL(location.href);
  if ($("seat").value === "") url.searchParams.delete("player");
  else url.searchParams.set("player", String(Number($("seat").value) + 1));
  history.replaceState(null, "", url);
  $("my-msg").textContent = "";
  drawStacking();
}

function drawStacking() {
  const st = doc.stacking;
  $("stacking").hidden = !st;
  if (!st) return;
  const facts = [`pool ${st.pool}`, `${st.length} game`];
  if (st.area) facts.push(`play area ${st.area}`);
  if (doc.game.reason) facts.push(`over: ${doc.game.reason}`);
  $("stacking-facts").textContent = facts.join(" · ");
  // drawStacking runs again without the board being redrawn (a seat chosen, the PIN given):
  // one outline, not one more each time.
  for (const old of $("board").querySelectorAll("rect.play-area")) old.remove();
  if (st.bounds) {
    // The play area outlined on the board (drawn just before): the squares outside it take no tile.
    const [r0, c0, r1, c1] = st.bounds;
    const outline = svg("rect", { x: MARGIN + c0 * CELL, y: MARGIN + r0 * CELL, width: (c1 - c0 + 1) * CELL,
                                  height: (r1 - r0 + 1) * CELL, class: "play-area" });
    outline.append(svg("title", {}, `The play area: ${st.area}`));
    $("board").append(outline);
  }
  const seat = mySeat();
  const chooser = $("seat");
  if (!chooser.dataset.wired) {
    chooser.dataset.wired = "1";
    chooser.addEventListener("change", chooseSeat);
    $("my-redraw").addEventListener("click", () => {
      const me = mySeat();
      if (me !== null) playerAction("/api/redraw", { player: me }, "my-msg", "Redrawn: take the tiles the referee names.");
    });
  }
  const names = doc.players.map((p) => p.name);
  if (chooser.dataset.names !== names.join("\n")) {
    chooser.dataset.names = names.join("\n");
    chooser.replaceChildren(el("option", { value: "" }, "nobody's (a spectator)"),
      ...names.map((n, i) => el("option", { value: String(i) }, `${n}'s`)));
  }
  chooser.value = seat === null ? "" : String(seat);
  const mine = $("mine");
  mine.hidden = seat === null;
  $("my-actions").hidden = seat === null || doc.game.to_move !== seat;
  if (seat !== null) {
    const p = doc.players[seat];
    const price = st.prices[seat];
    const turn = doc.game.to_move === seat ? "your turn: tap a tile to buy it"
      : doc.game.over ? "the game is over" : "buy on your turn";
    mine.textContent = `${p.name}: ${p.score} points · rack ${p.rack || "empty"}` +
      (p.rainbows ? ` (rainbow ${p.rainbows})` : "") + ` · your next tile costs ${price}` +
      (price > p.score ? " (more than your score)" : "") + ` · ${turn}`;
  }
  const market = $("market");
  market.replaceChildren();
  const buyer = seat !== null ? seat : doc.game.to_move;
  for (const t of st.market) {
    const price = buyer !== null ? st.prices[buyer] : null;
    if (!admin && seat === null) {
      // A sale is the buyer's own page's (or the organiser's): a spectator sees the tiles for
      // sale, not a control.
      const tile = el("span", { class: "market-tile", "data-letter": t.letter, role: "img",
                                "aria-label": `${t.letter} (${t.value} points) for ${price === null ? "sale" : price + " points"}` }, t.letter);
      tile.append(el("small", {}, String(t.value)));
      market.append(tile);
      continue;
    }
    const b = el("button", { type: "button", class: "market-tile", "data-letter": t.letter,
                             "aria-label": `Buy ${t.letter} (${t.value} points) for ${price} points` }, t.letter);
    b.append(el("small", {}, String(t.value)));
    b.disabled = doc.game.over || buyer === null;
    b.addEventListener("click", () => {
      if (seat !== null) {
        playerAction("/api/buy", { player: seat, letter: t.letter }, "my-msg", `Bought ${t.letter} for ${price}.`);
      } else {
        action("/api/admin/action", { action: "buy", tiles: t.letter }, `Sold ${t.letter}.`);
      }
    });
    market.append(b);
  }
  if (st.market.length === 0) market.append(el("span", { class: "muted" }, "empty"));
  const rows = $("prices");
  rows.replaceChildren();
  doc.players.forEach((p, i) => {
    const tr = el("tr", { id: `price-${i}` });
    tr.append(el("td", {}, p.name + (p.conceded ? " (conceded)" : "")), el("td", {}, String(st.purchases[i])),
              el("td", {}, String(st.prices[i])));
    rows.append(tr);
  });
}

// The organiser's actions the game offers now (its view lists them: name and label), each a
// button sending the tiles typed to /api/admin/action.
function drawActions() {
  const offered = doc.actions || [];
  // The organiser's actions: never shown to a spectator.
  $("actions").hidden = offered.length === 0 || !admin;
  const box = $("action-buttons");
  const shown = Array.from(box.children).map((b) => b.dataset.action).join(" ");
  if (shown === offered.map((a) => a.name).join(" ")) return;
  box.replaceChildren();
  for (const a of offered) {
    const b = el("button", { type: "button", "data-action": a.name }, a.label);
    b.addEventListener("click", () => action("/api/admin/action", { action: a.name, tiles: $("action-tiles").value.trim() },
      a.done || `${a.label}: done.`));
    box.append(b);
  }
}

function drawSquare(sq) {
  const x = MARGIN + sq.col * CELL, y = MARGIN + sq.row * CELL;
  const cx = x + CELL / 2, cy = y + CELL / 2;
  const g = svg("g", { class: `piece ${sq.kind}`, "data-square": squareName(sq.row, sq.col) });
  let label;
  if (sq.kind === "tile") {
    const fill = tileFill(sq), ink = inkFor(fill);
    const face = svg("g", { transform: `rotate(${sq.rotation || 0} ${cx} ${cy})` });
    face.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 4, fill, class: "tile" }));
    face.append(svg("text", { x: cx - (sq.blank ? 0 : 2), y: cy + 8, "text-anchor": "middle", class: sq.blank ? "letter blank" : "letter", fill: sq.blank ? "#b0281a" : ink }, sq.letter));
    if (!sq.blank) face.append(svg("text", { x: x + CELL - 5, y: y + CELL - 5, "text-anchor": "end", class: "value", fill: ink }, String(sq.value)));
    g.append(face);
    label = `${squareName(sq.row, sq.col)}: ${sq.blank ? "blank as " : ""}${sq.letter}` +
            (sq.rotation ? `, turned ${sq.rotation}°` : "") + (sq.set ? `, ${sq.set} set` : "");
  } else if (sq.kind === "back") {
    const fill = tileFill(sq);
    g.append(svg("rect", { x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 4, fill, class: "tile back-body" }));
    g.append(svg("rect", { x: x + 8, y: y + 8, width: CELL - 16, height: CELL - 16, rx: 2, class: "back-mark" }));
    label = `${squareName(sq.row, sq.col)}: a tile face down`;
  } else {
    label = `${squareName(sq.row, sq.col)}: empty`;
  }
  if (sq.token) {
    g.append(svg("circle", { cx: x + 9, cy: y + 9, r: 5.5, class: "token" }));
    label += ", a token";
  }
  if (sq.height > 1) {
    g.append(svg("rect", { x: x + 2, y: y + CELL - 15, width: 13, height: 13, rx: 2, class: "height-badge" }));
    g.append(svg("text", { x: x + 8.5, y: y + CELL - 5, "text-anchor": "middle", class: "height" }, String(sq.height)));
    label += `, stack of ${sq.height}`;
  }
  g.append(svg("title", {}, label));
  return g;
}

// A play's word as players read it: the letters it played through in brackets, RE(L)IgION
// (the server's `shown`), GCG's dotted form only from a server without it.
function moveWord(m) {
  return m.shown || m.word;
}

function drawLastMove() {
  const box = $("last-move");
  box.replaceChildren();
  const m = doc.last_move;
  if (!m) { box.append(el("p", { class: "muted" }, "No move yet.")); return; }
  const who = doc.players[m.player].name;
  if (m.summary) {
    // A game that scores no move (Scrabble House): the move in one line, no breakdown.
    box.append(el("p", { class: "move-head" }, `${who}: ${m.summary}`));
    return;
  }
  if (doc.stacking) {
    // Each word spelled out as the rules text does: stack multipliers, premiums, rainbow doubles.
    box.append(el("p", { class: "move-head" }, `${who}: +${m.points}`));
    const words = el("ul", { class: "breakdown" });
    for (const w of m.words) words.append(el("li", {}, w.explain));
    box.append(words);
    return;
  }
  if (m.kind === "withdrawn") {
    // The play came off: said so, its squares outlined on the board (empty now).
    const squares = m.squares.map(([r, c]) => squareName(r, c)).join(" ");
    box.append(el("p", { class: "move-head withdrawn" },
      `${who}: ${m.position} ${moveWord(m)} came off (${m.withdrawn_points}), squares ${squares}`));
    return;
  }
  box.append(el("p", { class: "move-head" }, `${who}: ${m.position} ${moveWord(m)}  +${m.points}`));
  const list = el("ul", { class: "breakdown" });
  for (const w of m.words) {
    const parts = w.letters.map((l) => {
      let s = `${l.blank ? l.letter.toLowerCase() : l.letter}${l.value}`;
      if (l.premium === "DL") s += "×2"; else if (l.premium === "TL") s += "×3";
      return s;
    });
    let line = `${w.gcg}: ${parts.join(" + ")} = ${w.letter_sum}`;
    if (w.multiplier > 1) line += ` × ${w.multiplier}`;
    line += ` = ${w.score}`;
    list.append(el("li", {}, line));
  }
  if (m.bonuses) {  // Scrabble III: each bonus apart
    const b = m.bonuses;
    if (b.big_play) list.append(el("li", {}, `big play: +${b.big_play}`));
    if (b.stretch) list.append(el("li", {}, `stretch${m.stretched_by ? " by " + m.stretched_by : ""}: +${b.stretch}`));
    if (b.jqxz) list.append(el("li", {}, `JQXZ: +${b.jqxz}`));
    if (b.capped) list.append(el("li", {}, `small-word cap: −${b.capped} (already taken off above)`));
    if (m.pick_off && m.pick_off.length) list.append(el("li", {}, `picked off ${m.pick_off.join(" ")}`));
  } else if (m.bonus) list.append(el("li", {}, `all tiles: +${m.bonus}`));
  box.append(list);
}

// Scrabble House: the second board, and each explosion waiting for the players, in words.
function drawHouse() {
  const boards = doc.boards || [];
  $("board2-wrap").hidden = boards.length < 2;
  document.body.classList.toggle("two-boards", boards.length >= 2);
  if (boards.length >= 2) {
    drawBoardInto(boards[1], $("board2"), $("board2-title"));
    $("board2-caption").textContent = boards[1].title;
  }
  const box = $("explosion");
  box.replaceChildren();
  const waiting = boards.filter((b) => b.preview);
  $("explosion-card").hidden = waiting.length === 0;
  for (const b of waiting) {
    const p = b.preview;
    const name = (i) => doc.players[i].name;
    box.append(el("p", { class: "move-head" }, `Board ${b.index + 1}: ${name(p.mover)} plays ${p.words.join(", ")}`));
    const list = el("ol", { class: "steps" });
    if (p.turned.length) list.append(el("li", {}, `Turn to ${name(p.mover)}: ${p.turned.map(([r, c]) => squareName(r, c)).join(" ")}`));
    for (const step of p.steps) {
      for (const r of step.removals) {
        list.append(el("li", {}, `Step ${step.rule}: ${r.describe} (${r.squares.map(([y, x]) => squareName(y, x)).join(" ")})`));
      }
    }
    if (p.passed.length) list.append(el("li", {}, `To ${name(p.partner)}: ${p.passed.map((t) => t.letter).join(" ")}`));
    box.append(list);
    box.append(el("p", { class: "muted" }, "Nothing is removed yet: turn and take off the tiles shown, then press the clock."));
  }
}

// The table's question about squares (the camera unsure, a tile read otherwise): each square
// marked on the board, answered here by the player on move or the organiser; the answer
// completes the move that asked.
let questionShown = "";
function drawQuestion() {
  const q = doc.question || null;
  const key = JSON.stringify(q);
  $("question").hidden = !q;
  if (key === questionShown) return;
  questionShown = key;
  const box = $("question-list");
  box.replaceChildren();
  if (!q) return;
  // Read out through the page's one live region (only the newest thing said is announced).
  $("announce").textContent = q.asks.map((a) => a.text).join(" ");
  box.append(el("p", { class: "muted" }, `${doc.players[q.player].name}'s move waits for the answer.`));
  for (const a of q.asks) {
    const div = el("div", { class: "ask", "data-ask": a.square });
    div.append(el("p", {}, a.text));
    const row = el("div", { class: "row buttons" });
    const send = (letter, blank) => answer({ square: a.square, letter, blank });
    if (a.empty) {
      const none = el("button", { type: "button", "data-answer": "none" }, "No tile");
      none.addEventListener("click", () => send("", false));
      row.append(none);
    }
    if (a.letters.length <= 2) {
      for (const l of a.letters) {
        const b = el("button", { type: "button", "data-answer": l }, `It is ${l}`);
        b.addEventListener("click", () => send(l, false));
        row.append(b);
      }
    } else {
      const input = el("input", { maxlength: "1", autocomplete: "off", autocapitalize: "characters",
                                  "aria-label": `The letter on ${a.square}`, class: "answer-letter" });
      const blank = el("input", { type: "checkbox", class: "answer-blank" });
      const label = el("label", { class: "check" });
      label.append(blank, document.createTextNode(" a blank"));
      const b = el("button", { type: "button", "data-answer": "letter" }, "This tile");
      b.addEventListener("click", () => send(input.value.trim(), blank.checked));
      row.append(input, label, b);
    }
    div.append(row);
    box.append(div);
  }
}

// The player on move says their next turn without tiles is an exchange (the board cannot tell).
function drawTurn() {
  const g = doc.game;
  const offered = g.declared !== undefined && !g.over && !g.awaiting_racks && g.to_move !== null && !doc.question &&
    !(doc.computer && doc.computer.move);
  $("turn").hidden = !offered;
  if (!offered) return;
  const d = g.declared;
  $("declared").textContent = d ? `${doc.players[d.player].name}: an exchange of ${d.count} tiles at the next press` :
    `${doc.players[g.to_move].name}: a turn without tiles is a pass`;
}

// The challenge window: the last play, while it can still be challenged, with a button for
// each player who may challenge it (the house list decides).
const FAILED = { single: "a failed challenge costs nothing", double: "a failed challenge costs the challenger a turn",
                 "five-points": "a failed challenge gives the player 5 points a word",
                 consent: "a challenge ends the match: the side the word list proves right wins" };
let challengeShown = "";
function drawChallenge() {
  const p = doc.game.pending;
  const open = !!p && doc.game.challenge !== "void" && !doc.game.over;
  $("challenge-window").hidden = !open;
  const key = open ? JSON.stringify(p) : "";
  if (key === challengeShown) return;
  challengeShown = key;
  const box = $("challenge-buttons");
  box.replaceChildren();
  if (!open) return;
  const who = doc.players[p.player].name;
  $("challenge-what").textContent = `${who}'s ${p.words.join("/")} (${p.score}) can be challenged until ` +
    `${doc.players[p.closes_with].name} acts: ${FAILED[doc.game.challenge] || doc.game.challenge}.`;
  for (const i of p.challengers) {
    const b = el("button", { type: "button", "data-challenger": String(i) }, `${doc.players[i].name} challenges`);
    b.addEventListener("click", () => playerAction("/api/challenge", { by: i }, "challenge-msg", "Challenge decided."));
    box.append(b);
  }
}

// The end of a game with private racks: the tiles left on each rack, entered here.
let racksShown = "";
function drawRacks() {
  const asked = !!doc.game.awaiting_racks;
  $("racks").hidden = !asked;
  const key = asked ? doc.game.id + ":" + doc.players.map((p) => p.rack_size).join(",") : "";
  if (key === racksShown) return;
  racksShown = key;
  const box = $("racks-inputs");
  box.replaceChildren();
  if (!asked) return;
  for (const p of doc.players) {
    const id = `rack-${p.index}`;
    box.append(el("label", { for: id }, `${p.name} (${p.rack_size} tiles)`));
    // Up to the tiles the rack holds (8 in Scrabble III), 7 at least where the game does not count them.
    box.append(el("input", { id, class: "rack", maxlength: String(Math.max(7, p.rack_size || 0)), autocomplete: "off",
                             autocapitalize: "characters",
                             placeholder: p.rack_size ? "?".repeat(p.rack_size) : "empty" }));
  }
}

// The table's buttons on the page, where it has no real ones (`companion run --mock`): a tap or
// a key presses the button as a hand would (the server drives its pin).
let pressButtons = [];
let pressesShown = "";
function pressLabel(name) {
  if (name === "pause") return "Pause";
  if (name === "roll") return "Roll the dice";
  const i = Number(name.slice("player".length)) - 1;
  const p = doc && doc.players && doc.players[i];
  return `${p ? p.name : "Player " + (i + 1)}'s clock`;
}
// The buttons this game uses: the roll button is wired at every table, but only a game with
// dice to roll (the registry's word, options.capabilities.dice) shows it.
function gamePresses() {
  const can = (doc && doc.options && doc.options.capabilities) || {};
  return pressButtons.filter((name) => name !== "roll" || can.dice);
}
function drawPresses() {
  const names = gamePresses();
  $("presses").hidden = !names.length;
  const key = names.map(pressLabel).join("|");
  if (key === pressesShown) return;
  pressesShown = key;
  const box = $("press-buttons");
  box.replaceChildren();
  for (const name of names) {
    const b = el("button", { type: "button", "data-press": name }, pressLabel(name));
    b.addEventListener("click", () => pressButton(name));
    box.append(b);
  }
}
function pressButton(name) {
  return playerAction("/api/press", { button: name }, "press-msg", `Pressed: ${pressLabel(name)}.`);
}
const PRESS_KEYS = { p: "pause", r: "roll" };
document.addEventListener("keydown", (e) => {
  if (!gamePresses().length || e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
  if (e.target.closest && e.target.closest("input, textarea, select")) return;
  const name = /^[1-4]$/.test(e.key) ? `player${e.key}` : PRESS_KEYS[e.key.toLowerCase()];
  if (name && gamePresses().includes(name)) {
    e.preventDefault();
    pressButton(name);
  }
});

async function playerAction(path, data, msg, done) {
  const m = $(msg);
  try {
    await post(path, data);
    m.textContent = done;
    m.classList.remove("bad");
  } catch (err) {
    m.textContent = err.message;
    m.classList.add("bad");
  }
}

async function answer(data) {
  const m = $("question-msg");
  try {
    await post("/api/answer", data);
    m.textContent = "Answered.";
    m.classList.remove("bad");
  } catch (err) {
    m.textContent = err.message;
    m.classList.add("bad");
  }
}

// The referee's list in the order things happened, each numbered by its place in the game
// (the document lists the newest first); the newest is scrolled into view.
function drawVerdicts() {
  const list = $("verdicts");
  list.replaceChildren();
  for (const v of [...doc.verdicts].reverse()) {
    const li = el("li", { class: `verdict ${v.kind}` });
    if (v.id !== undefined) li.value = v.id;
    if (v.words && v.words.length && (v.kind === "refused" || v.kind === "withdrawn" || v.kind === "turn-lost")) {
      li.append(el("strong", { class: "bad-word" }, v.words.join(", ")));
      li.append(document.createTextNode(" "));
    }
    li.append(document.createTextNode(v.message));
    if (v.squares && v.squares.length) li.append(el("span", { class: "muted" }, ` (${v.squares.map(([r, c]) => squareName(r, c)).join(" ")})`));
    list.append(li);
  }
  list.scrollTop = list.scrollHeight;
}

function drawHistory() {
  const body = $("history");
  body.replaceChildren();
  let n = 0;
  for (const row of doc.history) {
    const tr = el("tr", { class: row.kind });
    n += 1;
    tr.append(el("td", {}, String(n)));
    tr.append(el("td", {}, doc.players[row.player].name));
    let what = row.what;  // Scrabble House: the move in words
    if (what === undefined) switch (row.kind) {
      case "play": what = `${row.position} ${moveWord(row)}`; break;
      case "pass": what = "pass"; break;
      case "turn-lost": what = "turn lost"; break;
      case "exchange": what = `exchange ${row.tiles || row.count}`; break;
      case "withdrawn": what = row.position ? `${row.position} ${moveWord(row)} withdrawn` : "play withdrawn"; break;
      case "challenge-bonus": what = "challenge bonus"; break;
      case "end-rack-points": what = `racks (${row.tiles})`; break;
      case "last-rack-penalty": what = `own rack (${row.tiles})`; break;
      default: what = row.message || row.kind;
    }
    const cell = el("td", {}, what);
    const best = reviewLine(n - 1);
    if (best) cell.append(el("div", { class: "best" }, best));
    tr.append(cell);
    tr.append(el("td", { class: "num" }, row.points === undefined ? "" : (row.points > 0 ? "+" : "") + row.points));
    tr.append(el("td", { class: "num" }, row.total === undefined ? "" : String(row.total)));
    tr.append(el("td", { class: "num time" }, timeUsed(n - 1)));
    if (row.kind === "play" && row.tiles) {
      // Tap (or Enter) a move: the board as it was after it.
      tr.tabIndex = 0;
      tr.classList.add("pickable");
      tr.setAttribute("aria-label", `Show the board after move ${n}`);
      const index = n - 1;
      tr.addEventListener("click", () => showMove(index));
      tr.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); showMove(index); } });
    }
    if (viewing === n - 1) tr.classList.add("viewing");
    body.append(tr);
  }
}

// --- after the game: each move's best alternative ------------------------------------------
// The server's review (the game's own move generator, off the table's loop): for each move the
// best play found and the points left on the table. At a table the racks are private: a move
// whose rack the game does not know is compared with the best play of the tiles it put down.

function reviewLine(i) {
  const r = doc.review;
  const m = r && r.state === "done" ? r.moves[i] : null;
  if (!m) return "";
  if (m.unreviewed) return m.unreviewed;
  const from = m.whole_rack ? "" : " of its tiles";
  if (!m.rack) return "rack unknown: no alternative";
  if (!m.best) return m.note ? `no alternative: ${m.note}` : `no play${from} found`;
  const best = `${m.best.position} ${m.best.shown} ${m.best.score}`;
  const row = doc.history[i];
  if (m.left === 0 && (row.kind === "play" || row.kind === "played") && !m.came_off && row.position === m.best.position) return "the best play" + from;
  return `best${from}: ${best}, ${m.left} left`;
}

function drawReview() {
  const box = $("review");
  const r = doc.review;
  box.hidden = !r;
  if (!r) return;
  if (r.state === "working") { box.textContent = "After the game: looking for each move's best alternative…"; return; }
  if (r.state !== "done") { box.textContent = `No review of the game: ${r.error || r.state}`; return; }
  const left = Object.entries(r.left).map(([i, n]) => `${doc.players[Number(i)].name} ${n}`).join(", ");
  const turns = r.moves.filter((m) => m).length;
  const how = r.whole_racks === turns ? "each move against the best play of its rack" :
    r.whole_racks ? `${r.whole_racks} moves against the best play of the rack; where the rack is unknown, each play against the best play of the tiles it put down` :
    "the racks are unknown: each play against the best play of the tiles it put down, no alternative to a pass or an exchange";
  box.textContent = `Points left on the table: ${left || "none found"} (${how}; the companion's own move generator and word list).`;
}

// --- history: the board after a move, the time each move took -------------------------------

let viewing = null;  // the index in doc.history of the move whose board is shown, or null: now

// The time a move took: from the previous move's entry to this one's (the thinking and any
// challenge window), as the table's clock saw them.
function timeUsed(i) {
  const h = doc.history;
  if (h[i].at_ms === undefined || i === 0 || h[i - 1].at_ms === undefined) return "";
  if (h[i].kind !== "play" && h[i].kind !== "pass" && h[i].kind !== "exchange") return "";
  return formatMs(Math.max(0, h[i].at_ms - h[i - 1].at_ms));
}

// The board after move i: the plays up to it that stood (a play followed by its withdrawal
// never happened on the board).
function boardAfter(i) {
  const squares = [];
  const h = doc.history;
  for (let k = 0; k <= i; k++) {
    const row = h[k];
    if (row.kind !== "play" || !row.tiles) continue;
    if (k + 1 <= i && h[k + 1].kind === "withdrawn") continue;
    for (const [r, c, letter, blank] of row.tiles) {
      squares.push({ row: r, col: c, kind: "tile", letter, blank, value: blank ? 0 : (tileValue(letter)), rotation: 0, height: 1 });
    }
  }
  return { ...doc.board, squares, highlight: h[i].tiles.map(([r, c]) => [r, c]), highlight_kind: "play",
           corrected: [], preview: null, title: `After move ${i + 1}: ${doc.players[h[i].player].name} ${h[i].position} ${moveWord(h[i])}` };
}

function tileValue(letter) {
  for (const sq of doc.board.squares) if (sq.kind === "tile" && !sq.blank && sq.letter === letter) return sq.value;
  for (const row of doc.history) for (const w of row.words || []) for (const l of w.letters) if (!l.blank && l.letter === letter) return l.value;
  return "";
}

function showMove(i) {
  viewing = viewing === i ? null : i;
  drawBoard();
  drawHistory();
}

// Unseen tiles (bag and racks, as the board leaves them) and the spread.
function drawPool() {
  const box = $("pool");
  if (!box) return;
  const g = doc.game;
  const parts = [];
  if (g.unseen !== undefined) parts.push(`Unseen (${g.unseen.length}): ${g.unseen.replace(/(.)\1*/g, (m) => m + " ").trim()}`);
  const scored = doc.players.filter((p) => p.score !== null && p.score !== undefined);
  if (scored.length >= 2) {
    const sorted = [...scored].sort((a, b) => b.score - a.score);
    const spread = sorted[0].score - sorted[1].score;
    parts.push(spread === 0 ? "Spread: level" : `Spread: ${sorted[0].name} +${spread}`);
  }
  box.textContent = parts.join(" · ");
}

let choicesFor = null;
function drawAdminChoices() {
  const sel = $("challenger");
  const current = sel.value;
  sel.replaceChildren();
  doc.players.forEach((p) => sel.append(el("option", { value: String(p.index) }, p.name)));
  if (current) sel.value = current;
  const resigner = $("resigner"), was = resigner.value;
  resigner.replaceChildren();
  doc.players.forEach((p) => resigner.append(el("option", { value: String(p.index) }, p.name)));
  if (was) resigner.value = was;
  if (choicesFor === doc.game.id) return;
  choicesFor = doc.game.id;
  const o = doc.options;
  const fill = (id, items) => {
    const s = $(id);
    s.replaceChildren();
    for (const [value, label, disabled] of items) {
      const opt = el("option", { value }, label);
      if (disabled) opt.disabled = true;
      s.append(opt);
    }
  };
  fill("game", o.games.map((g) => [g.name, g.available ? g.title : `${g.title} (not started from this page)`, !g.available]));
  const controls = o.time_controls.map((t) => [t.name, `${t.name}: ${t.label}`]);
  const configured = doc.configured && doc.configured.settings && doc.configured.settings.control_spec;
  if (configured) controls.unshift(["configured", `configuration file: ${doc.configured.settings.control}`]);
  fill("control", controls);
  fill("challenge", o.challenge_modes.map((m) => [m, m]));
  fill("tileset", o.tilesets.map((t) => [t, t]));
  const preset = o.time_controls.find((t) => t.label === doc.clock.control);
  if (preset) $("control").value = preset.name;
  $("challenge").value = doc.game.challenge;
  $("tileset").value = doc.game.tileset;
  $("game").value = doc.game.name;
  $("names").value = doc.players.map((p) => p.name).join("\n");
  if (doc.configured && doc.configured.game === doc.game.name && doc.configured.settings) {
    // The form proposes what the configuration file asks of the next game.
    const s = doc.configured.settings;
    if (configured) $("control").value = "configured";
    if (s.challenge) $("challenge").value = s.challenge;
    if (s.tileset) $("tileset").value = s.tileset;
    if (s.names) $("names").value = s.names.join("\n");
  }
  showSettings();
}

// The new-game form shows the settings the chosen game takes (the registry's), no others.
const SETTING_FIELDS = ["control", "challenge", "tileset", "objects", "dice", "computers", "length", "area"];

function chosenGame() {
  return doc.options.games.find((g) => g.name === $("game").value) || { settings: [], seats: [1, 4], challenge_modes: [] };
}

function showSettings() {
  const g = chosenGame();
  for (const id of SETTING_FIELDS) {
    const shown = g.settings.includes(id);
    $(id).hidden = !shown;
    document.querySelector(`label[for="${id}"]`).hidden = !shown;
  }
  if (g.challenge_modes.length && !g.challenge_modes.includes($("challenge").value)) {
    $("challenge").replaceChildren(...g.challenge_modes.map((m) => el("option", { value: m }, m)));
  }
}

// --- live updates --------------------------------------------------------------------------

// A document replaces the one shown when it is newer, or when it comes from another life of
// the server (its epoch): a restarted server counts its versions from 1 again, and its state is
// the true one, however small its version.
function accept(next) {
  if (doc && next.epoch === doc.epoch && next.version < doc.version) return;  // an older document arriving late
  render(next);
}

function setLive(text, ok) {
  const live = $("live");
  live.textContent = text;
  live.classList.toggle("ok", ok);
}

function connect() {
  if (!window.EventSource) { startPolling(); return; }
  source = new EventSource("/api/events");
  source.addEventListener("snapshot", (e) => {
    const next = JSON.parse(e.data);
    setServerTime(next.server_time);
    heard();
    accept(next);
    setLive("live", true);
    stopPolling();
  });
  source.addEventListener("patch", (e) => {
    const change = JSON.parse(e.data);
    const next = patched(change);
    if (next === undefined) return;  // already shown
    if (next === null) { resync(); return; }
    setServerTime(next.server_time);
    heard();
    accept(next);
    setLive("live", true);
  });
  source.addEventListener("time", (e) => {
    const t = JSON.parse(e.data);
    setServerTime(t.server_time);
    if (t.keepalive_ms) keepaliveMs = t.keepalive_ms;
    heard();
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      // Refused (too many streams) or gone: poll, and try the stream again later.
      source = null;
      startPolling();
      setTimeout(() => { if (!source) connect(); }, 30000);
    } else {
      setLive("reconnecting…", false);
    }
  };
}

// --- lighter updates ---------------------------------------------------------------------------
// After the first document the stream sends each change as a patch against the one before
// (companion/web/patch.py says the form). A patch that does not follow the document shown (a
// stream that missed one) brings the whole document again.

function applyPatch(target, patch) {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  if ("$list" in patch) {
    const old = Array.isArray(target) ? target : [];
    const out = [];
    for (const op of patch.$list) {
      if (Array.isArray(op)) out.push(...old.slice(op[0], op[0] + op[1]));
      else if ("~" in op) out.push(applyPatch(old[op["~"][0]], op["~"][1]));
      else out.push(...op["+"]);
    }
    return out;
  }
  const out = target && typeof target === "object" && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v && typeof v === "object" && v.$delete === true) delete out[k];
    else out[k] = applyPatch(out[k], v);
  }
  return out;
}

// The document a change makes of the one shown; undefined: nothing new; null: it does not follow.
function patched(change) {
  if (!doc || change.epoch !== doc.epoch) return null;
  if (change.base < doc.version) return undefined;
  if (change.base !== doc.version) return null;
  return applyPatch(doc, change.patch);
}

function resync() {
  if (source) { source.close(); source = null; }
  connect();
}

async function poll() {
  const wasOffline = pollFailed;
  try {
    // A poll that hangs (a stalled connection) is given up, so that the next one can go.
    const r = await fetch("/api/state", { cache: "no-store", signal: AbortSignal.timeout(POLL_MS * 2) });
    if (!r.ok) throw new Error(r.status);
    const next = await r.json();
    setServerTime(Number(r.headers.get("X-Server-Time")) || next.server_time);
    pollFailed = false;
    heard();
    accept(next);
    setLive("updating every 2 s", true);
    // The server is back after an outage (a restart): the stream again at once.
    if (wasOffline && !source) connect();
  } catch (err) {
    pollFailed = true;
    setLive("offline: retrying", false);
  }
}

function startPolling() {
  if (pollTimer) return;
  poll();
  pollTimer = setInterval(poll, POLL_MS);
}

function stopPolling() {
  if (pollTimer) { clearInterval(pollTimer); pollTimer = null; }
}

// --- the keep-alive watchdog -----------------------------------------------------------------
// A connection can stall without closing (a Wi-Fi drop, a proxy that stops forwarding): the
// stream then neither errs nor delivers. The server sends an event at least every keep-alive
// period; after one and a half periods without one the page says so (a banner, the clocks
// dimmed: they are guesses now) and opens a new stream, again every few seconds until one
// answers.

let keepaliveMs = 10000;     // the server's keep-alive period (its `time` events say it)
let lastHeard = performance.now();
let lastReconnect = 0;
let pollFailed = false;
const RECONNECT_EVERY_MS = 5000;

function heard() {
  lastHeard = performance.now();
  if (document.body.classList.contains("stale")) {
    document.body.classList.remove("stale");
    $("lost").hidden = true;
  }
}

function watchdog() {
  const silent = performance.now() - lastHeard;
  if (silent <= keepaliveMs * 1.5) return;
  if (!document.body.classList.contains("stale")) {
    document.body.classList.add("stale");
    $("lost").hidden = false;
    setLive("connection lost", false);
  }
  $("lost-for").textContent = `${Math.round(silent / 1000)} s`;
  if (performance.now() - lastReconnect < RECONNECT_EVERY_MS) return;
  lastReconnect = performance.now();
  if (source) { source.close(); source = null; }
  connect();
}

// --- the organiser -------------------------------------------------------------------------

async function loadSession() {
  const r = await fetch("/api/session", { cache: "no-store", credentials: "same-origin" });
  const s = await r.json();
  csrf = s.csrf;
  setAdmin(s.admin);
  pressButtons = document.body.classList.contains("tv") ? [] : s.buttons || [];  // not on the venue's screen
  drawPresses();
  // Only a browser on the device itself is told the PIN (the organiser at the table).
  const shown = $("device-pin");
  shown.hidden = !s.device_pin;
  shown.textContent = s.device_pin ? `On this device the PIN is ${s.device_pin}.` : "";
}

function setAdmin(on) {
  admin = on;
  $("admin").hidden = !on;
  $("login").hidden = on;
  if (doc) { drawActions(); drawStacking(); }
}

function say(text, bad) {
  const m = $("admin-msg");
  m.textContent = text;
  m.classList.toggle("bad", !!bad);
}

async function post(path, data) {
  const r = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf || "" },
    body: JSON.stringify(data || {}),
  });
  let answer = {};
  try { answer = await r.json(); } catch (e) { /* an empty answer */ }
  if (!r.ok) {
    if (r.status === 401) setAdmin(false);
    throw new Error(answer.error || `refused (${r.status})`);
  }
  return answer;
}

async function action(path, data, done) {
  try {
    await post(path, data);
    say(done, false);
  } catch (err) {
    say(err.message, true);
  }
}

// The organiser's camera view: what the table last read, the grid and letters drawn over it,
// fetched again every 5 s while it is open (each board's at a House table).
let cameraTimer = null;

async function refreshCamera() {
  clearTimeout(cameraTimer);
  if ($("camera-views").hidden || !admin) return;
  const boards = doc && doc.boards && doc.boards.length >= 2 ? 2 : 1;
  let said = "";
  for (let b = 0; b < 2; b++) {
    const img = $(`camera-${b}`);
    if (b >= boards) { img.hidden = true; continue; }
    const r = await fetch(`/api/admin/camera.jpg?board=${b}`, { cache: "no-store", credentials: "same-origin" });
    if (r.ok) {
      // A data: URL, as the page's Content-Security-Policy allows images from itself and data: only.
      const blob = await r.blob();
      img.src = await new Promise((done) => {
        const reader = new FileReader();
        reader.onload = () => done(reader.result);
        reader.readAsDataURL(blob);
      });
      img.hidden = false;
    } else {
      let answer = {};
      try { answer = await r.json(); } catch (e) { /* not JSON */ }
      said = answer.error || `camera: refused (${r.status})`;
      img.hidden = true;
    }
  }
  $("camera-msg").textContent = said;
  clearTimeout(cameraTimer);
  cameraTimer = setTimeout(refreshCamera, 5000);
}

function wireAdmin() {
  $("login").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const s = await post("/api/login", { pin: $("pin").value });
      csrf = s.csrf;
      $("pin").value = "";
      setAdmin(true);
      say("Unlocked: organiser's actions below.", false);
    } catch (err) {
      say(err.message, true);
    }
  });
  $("logout").addEventListener("click", async () => {
    try { const s = await post("/api/logout", {}); csrf = s.csrf; } catch (e) { /* locked anyway */ }
    setAdmin(false);
    say("Locked.", false);
  });
  $("camera-toggle").addEventListener("click", () => {
    const views = $("camera-views");
    views.hidden = !views.hidden;
    if (!views.hidden) refreshCamera();
  });
  $("pause").addEventListener("click", () => action("/api/admin/pause", {}, "Paused."));
  $("resume").addEventListener("click", () => action("/api/admin/resume", {}, "The clock runs."));
  $("undo").addEventListener("click", () => action("/api/admin/undo", {}, "Undone."));
  $("adjourn").addEventListener("click", () => action("/api/admin/adjourn", {}, "Adjourned: Start / resume goes on."));
  $("resign").addEventListener("click", () => action("/api/admin/resign", { player: Number($("resigner").value) },
    "Resigned: the game is over."));
  $("declare-exchange").addEventListener("click", () => playerAction("/api/declare",
    { count: Number($("exchange-count").value) }, "turn-msg", "Exchange told: put the tiles back, draw, press."));
  $("declare-pass").addEventListener("click", () => playerAction("/api/declare", { count: 0 }, "turn-msg", "A pass."));
  $("racks-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const racks = doc.players.map((p) => $(`rack-${p.index}`).value.trim());
    playerAction("/api/racks", { racks }, "racks-msg", "Racks told: the game is scored.");
  });
  for (const b of document.querySelectorAll("[data-decision]")) {
    b.addEventListener("click", () => action("/api/admin/challenge",
      { decision: b.dataset.decision, by: Number($("challenger").value) }, "Challenge decided."));
  }
  $("correct").addEventListener("submit", (e) => {
    e.preventDefault();
    action("/api/admin/correct", { square: $("square").value.trim(), letter: $("letter").value.trim(), blank: $("blank").checked },
      "Square corrected.");
  });
  $("new-game").addEventListener("submit", (e) => {
    e.preventDefault();
    const names = $("names").value.split("\n").map((s) => s.trim()).filter(Boolean);
    const g = chosenGame();
    const configuredSpec = () => doc.configured && doc.configured.settings && doc.configured.settings.control_spec;
    const value = { names: () => names.slice(0, g.seats[1]),
                    control: () => ($("control").value === "configured" ? configuredSpec() : $("control").value),
                    challenge: () => $("challenge").value, tileset: () => $("tileset").value,
                    objects: () => Number($("objects").value), dice: () => Number($("dice").value),
                    computers: () => computersAsked(), length: () => $("length").value,
                    // The stacking game's play area: the centre squares only (null: the whole board).
                    area: () => ($("area").value === "" ? null : Number($("area").value)) };
    const settings = { game: g.name };
    for (const k of g.settings) if (value[k]) settings[k] = value[k]();
    action("/api/admin/new-game", settings, "New game started.");
  });
  $("game").addEventListener("change", showSettings);
}

// "2:3, 3:1" (seats from 1, skills 1 to 5) as the server takes it: {"1": 3, "2": 1}.
function computersAsked() {
  const out = {};
  for (const part of $("computers").value.split(/[ ,]+/).filter(Boolean)) {
    const [seat, skill] = part.split(":").map(Number);
    out[String(seat - 1)] = skill;
  }
  return out;
}

// The computer seat on move: its move as the players lay it, and the tiles to take for its rack.
function drawComputer() {
  const c = doc.computer;
  $("computer").hidden = !c;
  if (!c) return;
  const m = c.move;
  let text = "";
  if (m) {
    const name = doc.players[m.seat].name;
    if (m.kind === "play") {
      const where = m.squares.map((q) => `${squareName(q.row, q.col)} ${q.blank ? "blank " + q.letter : q.letter}`).join(", ");
      text = `${name} plays ${m.position} ${m.word} (${m.score}): lay ${where}, then press ${name}'s button.`;
    } else if (m.kind === "exchange") {
      text = `${name} exchanges ${m.tiles}: put them back, take the tiles named below, press its button.`;
    } else {
      text = `${name} passes: press its button.`;
    }
  }
  $("computer-move").textContent = text;
  $("computer-racks").textContent = c.seats.map((s) => `${s.name} (skill ${s.skill}): rack ${s.rack}` +
    (s.take ? `; take ${s.take} from the supply or the bag` : "")).join(" · ");
}

async function showPageUrl() {
  try {
    const r = await fetch("/qr.svg", { method: "HEAD" });
    $("page-url").textContent = r.headers.get("X-Page-URL") || location.href;
  } catch (e) {
    $("page-url").textContent = location.href;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  wireAdmin();
  loadSession().catch(() => say("Cannot reach the companion.", true));
  showPageUrl();
  connect();
  setInterval(drawClocks, 200);
  setInterval(watchdog, 250);
  window.addEventListener("resize", fitBoard);
});
