// The page of `python -m training.serve`: plain JavaScript over the JSON API (see /docs), no build step.
// Everything shown comes from the server's views: the page never sees what the seat may not know.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { presets: [], policies: [], game: null, watch: null, timer: null };

// ------------------------------------------------------------------ helpers
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function options(select, items, selected) {
  select.replaceChildren(...items.map(([value, label, title]) => el("option", { value, text: label, title: title || label })));
  if (selected !== undefined && items.some(([v]) => String(v) === String(selected))) select.value = selected;
}

// A seat's label as the page shows it. Records name the human's seat by the agent label "human" (and /api/replay
// returns the record's labels as they are); the page calls that seat "you", as it did during the game and as
// `python -m training.replay` does.
function shownLabel(label) {
  return label === "human" ? "you" : label;
}

// A label that is the seat's own name is not repeated (`player_0`, not `player_0 (player_0)`): /api/replay labels the
// seats of a record without agents so, and the env's records name seats so; `python -m training.replay` drops it too.
function seatName(view, seat, labels) {
  const own = `player_${seat}`;
  const label = shownLabel(labels ? labels[seat] : view.players[seat].label);
  return label && label !== own ? `${own} (${label})` : own;
}

// Actions are named as the server names them: pass, take; with special cards "bid N", drop, "value N", "delete N".
function describeMove(move, name) {
  if (move.action === "pass") return `${name} passed on ${move.card} (pot now ${move.pot + 1})`;
  if (move.action === "take") return `${name} took ${move.card} with ${move.pot} chip${move.pot === 1 ? "" : "s"}`;
  const [verb, n] = move.action.split(" ");
  if (verb === "bid") return `${name} bid ${n} for the ${move.special}`;
  if (verb === "drop") return `${name} dropped out of the ${move.special} auction`;
  if (verb === "value") return `${name} named the wild ${n}`;
  if (verb === "delete") return `${name} discarded ${n} (delete)`;
  return `${name}: ${move.action}`;
}

function isSpecial(presetName) {
  const preset = state.presets.find((p) => p.name === presetName);
  return Boolean(preset && preset.settings.special_cards && preset.settings.special_cards.length);
}

function auctionText(view, name) {
  const a = view.auction;
  const card = a.card === "wild" ? "wild (?)" : "delete";
  if (view.phase === "choose_value") return `${name(view.to_act)} won the ${card}: naming its value`;
  if (view.phase === "choose_discard") return `${name(view.to_act)} won the ${card}: choosing a card to discard`;
  const bid = a.high_bid === null ? "no bid yet" : `high bid ${a.high_bid} by ${name(a.high_bidder)}`;
  return `auction for the ${card}: ${bid}`;
}

function signed(x) {
  return x > 0 ? `+${x}` : `${x}`;
}

function runsCell(player) {
  const cell = el("td", { class: "cards" });
  if (!player.runs.length && player.wild_value === null) cell.append("–");
  for (const [low, high] of player.runs) {
    const run = el("span", { class: "run" });
    for (let c = low; c <= high; c++) run.append(el("span", { class: "card", text: String(c) }));
    cell.append(run);
  }
  if (player.wild_value !== null && player.wild_value !== undefined) {
    cell.append(el("span", { class: "card wild", text: `?=${player.wild_value}`, title: `the wild counts as ${player.wild_value}` }));
  }
  if (player.delete_due) cell.append(el("span", { class: "note", text: "(next card taken is discarded)" }));
  if (player.paid) cell.append(el("span", { class: "note", text: `paid ${player.paid}` }));
  return cell;
}

// One table for play and watch: a row per seat, built from the view alone.
function renderSeats(table, view) {
  const multi = view.num_deals > 1;
  const head = ["player", "chips", "cards", "points", "penalty"].concat(multi ? ["match"] : [], ["last action"]);
  const numeric = new Set(["chips", "points", "penalty", "match"]);
  const rows = [el("tr", {}, ...head.map((h) => el("th", { text: h, class: numeric.has(h) ? "num" : "" })))];
  for (const p of view.players) {
    const classes = [];
    if (p.seat === view.seat) classes.push("you");
    if (p.seat === view.to_act) classes.push("to-act");
    if (view.outcome && view.outcome.winners.includes(p.seat)) classes.push("winner");
    const hidden = p.chips === null;
    const chips = el("td", { class: "num" + (hidden ? " hidden-chips" : ""), text: hidden ? "?" : String(p.chips) });
    if (hidden) chips.title = "hidden by the rules";
    const last = p.last_action ? describeMove(p.last_action, "").trim() : "";
    const cells = [
      el("td", { text: seatName(view, p.seat) }),
      chips,
      runsCell(p),
      el("td", { class: "num", text: String(p.card_points) }),
      el("td", { class: "num", text: p.penalty === null ? "?" : String(p.penalty) }),
    ];
    if (multi) cells.push(el("td", { class: "num", text: String(p.match_penalty) }));
    cells.push(el("td", { text: last }));
    rows.push(el("tr", { class: classes.join(" "), "data-seat": String(p.seat) }, ...cells));
  }
  table.replaceChildren(...rows);
}

function chipsLegend(view) {
  return {
    hidden: "? = opponents' chips, hidden by the rules (every chip movement is public: tick “perfect memory” to see them counted)",
    counted: "opponents' chips as counted from the public moves (perfect memory)",
    visible: "every player's chips are visible in this variant",
    all: "every chip count shown",
  }[view.chips_shown];
}

function statusLine(view) {
  // a finished one-deal game: "deal 1/1 over", as the terminal says it; a finished match: "deal 3/3 · match over"
  const parts = [`deal ${view.deal + 1}/${view.num_deals}${view.over && view.num_deals === 1 ? " over" : ""}`];
  if (view.over && view.num_deals > 1) parts.push("match over");
  else if (!view.over) parts.push(`${view.cards_in_deck} cards left in the deck`, `player_${view.to_act} to act`);
  if (view.removed_face_up.length) parts.push(`removed face up: ${view.removed_face_up.join(", ")}`);
  if (view.discarded && view.discarded.length) parts.push(`discarded: ${view.discarded.join(", ")}`);
  return parts.join(" · ");
}

// ------------------------------------------------------------------ setup
function policyChoices(players, special) {
  return state.policies
    .filter((p) => p.player_counts === null || p.player_counts.includes(players))
    .filter((p) => (special ? p.plays_special_cards : !p.special_only))
    .map((p) => [p.spec, `${p.spec} (${p.kind})`, p.description]);
}

function presetPlayers(name) {
  const preset = state.presets.find((p) => p.name === name);
  return preset ? preset.num_players : 3;
}

function buildPolicySelects(container, count, prefix, labelFn, players, special) {
  const previous = [...container.querySelectorAll("select")].map((s) => s.value);
  const choices = policyChoices(players, special);
  const selects = [];
  for (let i = 0; i < count; i++) {
    const select = el("select", { id: `${prefix}-${i}` });
    options(select, choices, previous[i] || "heuristic");
    selects.push(el("label", { text: labelFn(i) + " " }, select));
  }
  container.replaceChildren(...selects);
}

function refreshSetup() {
  const players = Number($("players").value);
  const seat = $("seat").value;
  options($("seat"), [["", "random"]].concat([...Array(players).keys()].map((i) => [String(i), `player_${i}`])), seat);
  const mySeat = $("seat").value === "" ? null : Number($("seat").value);
  const others = [...Array(players).keys()].filter((i) => i !== mySeat);
  buildPolicySelects($("opponents"), players - 1, "opponent",
    (k) => (mySeat === null ? `opponent ${k + 1}` : `player_${others[k]}`), players, isSpecial($("preset").value));
}

function refreshMatchSetup() {
  const players = Number($("match-players").value);
  buildPolicySelects($("match-policies"), players, "match-policy", (i) => `player_${i}`, players,
    isSpecial($("match-preset").value));
}

function setupForms() {
  const presetItems = state.presets.map((p) => [p.name, p.name]);
  const countItems = [3, 4, 5, 6, 7].map((n) => [String(n), String(n)]);
  for (const [preset, players, refresh] of [["preset", "players", refreshSetup], ["match-preset", "match-players", refreshMatchSetup]]) {
    options($(preset), presetItems, "standard");
    options($(players), countItems, "3");
    $(preset).addEventListener("change", () => {
      $(players).value = String(presetPlayers($(preset).value));
      refresh();
    });
    $(players).addEventListener("change", refresh);
  }
  $("seat").addEventListener("change", refreshSetup);
  refreshSetup();
  refreshMatchSetup();
  const policyItems = [["", "(none)"]].concat(state.policies.map((p) => [p.spec, p.spec]));
  options($("watch-policy"), policyItems, "");
}

// ------------------------------------------------------------------ play
async function startGame(event) {
  event.preventDefault();
  showError("");
  const seat = $("seat").value;
  const body = {
    preset: $("preset").value,
    players: Number($("players").value),
    seat: seat === "" ? null : Number(seat),
    opponents: [...$("opponents").querySelectorAll("select")].map((s) => s.value),
    perfect_memory: $("perfect-memory").checked,
  };
  $("start").disabled = true;
  try {
    const created = await api("POST", "api/games", body);
    state.game = { id: created.id, view: created.view, dealsShown: 0 };
    $("log").replaceChildren();
    $("setup").hidden = true;
    $("game").hidden = false;
    $("game").dataset.gameId = created.id;
    logMoves(created.moves, created.view);
    renderGame();
  } catch (err) {
    showError(err.message);
  } finally {
    $("start").disabled = false;
  }
}

function logMoves(moves, view) {
  const log = $("log");
  for (const move of moves) {
    const name = move.seat === view.seat ? "you" : seatName(view, move.seat);
    log.prepend(el("li", { text: describeMove(move, name) }));
  }
  while (state.game.dealsShown < view.deal_penalties.length) {
    const d = state.game.dealsShown++;
    const text = view.deal_penalties[d].map((p, i) => `player_${i} ${p}`).join(", ");
    log.prepend(el("li", { class: "deal-over", text: `deal ${d + 1} over — penalties: ${text}` }));
  }
}

function renderGame() {
  const view = state.game.view;
  $("status").textContent = statusLine(view);
  $("face-up").textContent = view.face_up_card === null ? "–" : String(view.face_up_card);
  $("pot").textContent = String(view.pot);
  $("your-chips").textContent = String(view.players[view.seat].chips);
  renderAuction(view);
  const myTurn = view.legal_actions.length > 0;
  $("pass").disabled = !view.legal_actions.includes("pass");
  $("take").disabled = !view.legal_actions.includes("take");
  let cost = "";
  if (!view.over && view.take_cost !== null) {
    cost = `taking now changes your penalty by ${signed(view.take_cost)}`;
    if (myTurn && !view.legal_actions.includes("pass")) cost += " — you have no chips, so you must take";
  }
  $("take-cost").textContent = cost;
  renderSeats($("table"), view);
  $("legend").textContent = chipsLegend(view);
  $("game").dataset.over = String(view.over);
  $("game").dataset.move = String(view.move);
  $("final").hidden = !view.over;
  $("offer").hidden = view.over || view.phase !== "offer";
  if (view.over) renderResults(view);
}

function renderResults(view) {
  const multi = view.num_deals > 1;
  const head = ["player"].concat(multi ? view.deal_penalties.map((_, d) => `deal ${d + 1}`) : [], ["penalty", "rank"]);
  const rows = [el("tr", {}, ...head.map((h, i) => el("th", { text: h, class: i ? "num" : "" })))];
  for (const p of view.players) {
    const won = view.outcome.winners.includes(p.seat);
    const cells = [el("td", { text: seatName(view, p.seat) })];
    if (multi) for (const deal of view.deal_penalties) cells.push(el("td", { class: "num", text: String(deal[p.seat]) }));
    cells.push(el("td", { class: "num penalty", text: String(view.outcome.penalties[p.seat]) }));
    cells.push(el("td", { class: "num", text: `${view.outcome.ranks[p.seat]}${won ? " (winner)" : ""}` }));
    rows.push(el("tr", { class: (won ? "winner " : "") + (p.seat === view.seat ? "you" : ""), "data-seat": String(p.seat) }, ...cells));
  }
  $("results").replaceChildren(...rows);
}

// The auction of a special card and the winner's choice: controls offer only what the view's legal_actions allow.
function renderAuction(view) {
  const box = $("auction");
  box.hidden = view.over || view.phase === "offer";
  if (box.hidden) return;
  const name = (s) => (s === view.seat ? "you" : seatName(view, s));
  $("auction-card").textContent = view.auction.card === "wild" ? "?" : "✕";
  $("auction-card").title = view.auction.card;
  $("auction-status").textContent = auctionText(view, name);
  const still = view.auction.in_auction.map((on, s) => (on ? name(s) : null)).filter((x) => x !== null);
  $("auction-in").textContent = view.phase === "auction" ? `still in: ${still.join(", ")}` : "";
  $("auction-chips").textContent = String(view.players[view.seat].chips);
  const bids = view.legal_actions.filter((a) => a.startsWith("bid ")).map((a) => Number(a.split(" ")[1]));
  const choosing = view.phase !== "auction";
  $("auction-actions").hidden = choosing;
  $("choice-actions").hidden = !choosing;
  const amount = $("bid-amount");
  $("bid").disabled = !bids.length;
  $("drop").disabled = !view.legal_actions.includes("drop");
  amount.disabled = !bids.length;
  if (bids.length) {
    amount.min = String(bids[0]);
    amount.max = String(bids[bids.length - 1]);
    if (amount.value === "" || !bids.includes(Number(amount.value))) amount.value = String(bids[0]);
  }
  const choices = view.legal_actions.filter((a) => a.startsWith("value ") || a.startsWith("delete "));
  $("choice-label").textContent = view.phase === "choose_value" ? "the wild's value" : "card to discard";
  options($("choice"), choices.map((a) => [a, a.split(" ")[1]]));
  $("choose").disabled = !choices.length;
}

function bidAction() {
  const view = state.game.view;
  const text = $("bid-amount").value.trim();
  const bids = view.legal_actions.filter((a) => a.startsWith("bid ")).map((a) => Number(a.split(" ")[1]));
  if (!/^\d+$/.test(text)) return showError(`bid: expected a whole number of chips, got "${text}"`);
  const n = Number(text);
  if (!bids.includes(n)) {
    const high = view.auction.high_bid;
    return showError(`bid ${n}: expected ${bids[0]}..${bids[bids.length - 1]} chips` +
      (high === null ? " (you open the auction)" : ` (more than the high bid ${high}, at most your chips)`));
  }
  act(`bid ${n}`);
}

async function act(action) {
  showError("");
  $("pass").disabled = $("take").disabled = true;
  $("bid").disabled = $("drop").disabled = $("choose").disabled = true;
  try {
    const result = await api("POST", `api/games/${state.game.id}/actions`, { action, move: state.game.view.move });
    state.game.view = result.view;
    logMoves(result.moves, result.view);
  } catch (err) {
    showError(err.message);
    try {
      state.game.view = await api("GET", `api/games/${state.game.id}`);
    } catch (reloadErr) {
      showError(`${err.message} (and the game could not be reloaded: ${reloadErr.message})`);
    }
  }
  renderGame();
}

async function downloadRecord() {
  try {
    const record = await api("GET", `api/games/${state.game.id}/record`);
    const blob = new Blob([JSON.stringify(record, null, 1)], { type: "application/json" });
    const link = el("a", { href: URL.createObjectURL(blob), download: `nothanks__web__${record.seed}.json` });
    document.body.append(link);
    link.click();
    link.remove();
  } catch (err) {
    showError(err.message);
  }
}

// ------------------------------------------------------------------ watch
function stopAutoplay() {
  clearInterval(state.timer);
  state.timer = null;
  $("autoplay").textContent = "Play";
}

async function loadRecord(record, autoplay = false) {
  showError("");
  stopAutoplay();
  state.watch = { record, step: 0, total: record.actions ? record.actions.length : 0 };
  const n = record.config ? record.config.num_players : 0;
  const seats = [["full", "full view (hidden cards shown)"]].concat([...Array(n).keys()].map((i) => [String(i), `player_${i}`]));
  options($("watch-seat"), seats, "full");
  const special = Boolean(record.config && record.config.special_cards && record.config.special_cards.length);
  if (special) $("watch-policy").value = "";  // the probabilities shown are P(pass), P(take): not for auctions
  $("watch-policy").disabled = special;
  $("watch-controls").hidden = false;
  const ok = await showStep(0);
  if (ok && autoplay) toggleAutoplay();
}

async function showStep(step) {
  const w = state.watch;
  if (!w) return false;
  const seat = $("watch-seat").value;
  const body = { record: w.record, step, seat: seat === "full" ? null : Number(seat), policy: $("watch-policy").value || null };
  try {
    const data = await api("POST", "api/replay", body);
    w.step = data.step;
    w.total = data.total;
    renderWatch(data);
    return true;
  } catch (err) {
    stopAutoplay();
    showError(err.message);
    return false;
  }
}

function renderWatch(data) {
  const view = data.view;
  $("watch").hidden = false;
  $("step-label").textContent = `step ${data.step}/${data.total}`;
  const last = data.last_move ? ` · last: ${describeMove(data.last_move, `player_${data.last_move.seat}`)}` : "";
  $("watch-status").textContent = statusLine(view) + last;
  $("watch-face-up").textContent = view.face_up_card !== null ? String(view.face_up_card)
    : view.auction ? (view.auction.card === "wild" ? "?" : "✕") : "–";
  if (view.auction) $("watch-status").textContent += ` · ${auctionText(view, (s) => `player_${s}`)}`;
  $("watch-pot").textContent = String(view.pot);
  $("watch-next").textContent = data.recorded_action ? `next in the record: player_${view.to_act}: ${data.recorded_action}` : "";
  $("watch-probs").textContent = data.probabilities
    ? `${$("watch-policy").value}: P(pass) ${data.probabilities[0].toFixed(2)}, P(take) ${data.probabilities[1].toFixed(2)} (${data.probability_source})`
    : "";
  renderSeats($("watch-table"), view);
  $("watch-hidden").textContent = view.deck
    ? `deck (next first): ${view.deck.join(" ") || "–"} · removed face down: ${view.removed_hidden.join(" ") || "–"}`
    : chipsLegend(view);
  if (view.over && view.outcome) {
    const winners = view.outcome.winners.map((s) => `player_${s}`).join(", ");
    $("watch-status").textContent += ` · penalties ${view.outcome.penalties.join(", ")} · winner: ${winners}`;
  }
}

function toggleAutoplay() {
  if (state.timer) return stopAutoplay();
  $("autoplay").textContent = "Pause";
  state.timer = setInterval(async () => {
    const w = state.watch;
    if (!w || w.step >= w.total) return stopAutoplay();
    await showStep(w.step + 1);
  }, Number($("speed").value));
}

async function loadSavedList() {
  try {
    const names = await api("GET", "api/records");
    options($("saved"), [["", names.length ? "(choose)" : "(none saved)"]].concat(names.map((n) => [n, n])), "");
  } catch (err) {
    showError(err.message);
  }
}

async function startMatch(event) {
  event.preventDefault();
  showError("");
  const seed = $("match-seed").value;
  const body = {
    preset: $("match-preset").value,
    players: Number($("match-players").value),
    policies: [...$("match-policies").querySelectorAll("select")].map((s) => s.value),
    seed: seed === "" ? null : Number(seed),
  };
  $("match-start").disabled = true;
  try {
    const record = await api("POST", "api/matches", body);
    $("speed").value = $("match-speed").value;
    switchTab("watch");
    await loadRecord(record, true);
  } catch (err) {
    showError(err.message);
  } finally {
    $("match-start").disabled = false;
  }
}

// ------------------------------------------------------------------ wiring
function switchTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== `tab-${name}`;
  if (name === "watch") loadSavedList();
}

async function init() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => switchTab(tab.dataset.tab));
  $("setup").addEventListener("submit", startGame);
  $("pass").addEventListener("click", () => act("pass"));
  $("take").addEventListener("click", () => act("take"));
  $("bid").addEventListener("click", bidAction);
  $("drop").addEventListener("click", () => act("drop"));
  $("choose").addEventListener("click", () => $("choice").value && act($("choice").value));
  $("download").addEventListener("click", downloadRecord);
  $("again").addEventListener("click", () => {
    $("game").hidden = true;
    $("setup").hidden = false;
  });
  $("match-setup").addEventListener("submit", startMatch);
  $("saved").addEventListener("change", async () => {
    if (!$("saved").value) return;
    try {
      await loadRecord(await api("GET", `api/records/${encodeURIComponent($("saved").value)}`));
    } catch (err) {
      showError(err.message);
    }
  });
  $("upload").addEventListener("change", async () => {
    const file = $("upload").files[0];
    if (!file) return;
    try {
      await loadRecord(JSON.parse(await file.text()));
    } catch (err) {
      showError(`record ${file.name}: ${err.message}`);
    }
  });
  $("first").addEventListener("click", () => showStep(0));
  $("back").addEventListener("click", () => state.watch && showStep(Math.max(state.watch.step - 1, 0)));
  $("next").addEventListener("click", () => state.watch && showStep(Math.min(state.watch.step + 1, state.watch.total)));
  $("last").addEventListener("click", () => state.watch && showStep(state.watch.total));
  $("autoplay").addEventListener("click", toggleAutoplay);
  $("watch-seat").addEventListener("change", () => state.watch && showStep(state.watch.step));
  $("watch-policy").addEventListener("change", () => state.watch && showStep(state.watch.step));
  $("speed").addEventListener("change", () => {
    if (state.timer) {
      stopAutoplay();
      toggleAutoplay();
    }
  });
  try {
    [state.presets, state.policies] = await Promise.all([api("GET", "api/presets"), api("GET", "api/policies")]);
    setupForms();
    document.body.dataset.ready = "true";
  } catch (err) {
    showError(`cannot reach the server: ${err.message}`);
  }
}

document.addEventListener("DOMContentLoaded", init);
