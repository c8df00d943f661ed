// Gamenight sandbox page: one or more colleagues' views of the same server, live.
// The server renders every message and modal to HTML; this script places them, sends what a
// colleague does (commands, clicks, selects, forms) and shows the bot's answers.
"use strict";

const state = { clock: null, clockAt: 0, users: [], views: [] };

async function post(url, body) {
  let res;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (err) {
    return { error: "the sandbox is not reachable (stopped?)" };
  }
  try {
    return await res.json();
  } catch (err) {
    return { error: `HTTP ${res.status}` };
  }
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

// -- time -----------------------------------------------------------------------------------

function sandboxNow() {
  if (!state.clock) return new Date();
  return new Date(Date.parse(state.clock.now) + (performance.now() - state.clockAt));
}

function zone() {
  return (state.clock && state.clock.zone) || "UTC";
}

// Discord draws a timestamp (<t:…:X>) on the reader's side, in the reader's language: the
// same message reads "in 46 seconds" for one colleague and "dans 46 secondes" for another.
// ``locale`` is the colleague's (undefined: the browser's, for the page's own clock).
function fmt(date, options, locale) {
  try {
    return new Intl.DateTimeFormat(locale, { timeZone: zone(), ...options }).format(date);
  } catch (err) {
    return date.toISOString();
  }
}

const RELATIVE_UNITS = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60]];

function relative(date, locale) {
  const secs = Math.round((date - sandboxNow()) / 1000);
  let rtf;
  try {
    rtf = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  } catch (err) {
    rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  }
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(secs) >= size) return rtf.format(Math.round(secs / size), unit);
  }
  return rtf.format(secs, "second");
}

const TIME_STYLES = {
  t: { timeStyle: "short" },
  T: { timeStyle: "medium" },
  d: { year: "numeric", month: "2-digit", day: "2-digit" },
  D: { dateStyle: "long" },
  f: { dateStyle: "long", timeStyle: "short" },
  F: { dateStyle: "full", timeStyle: "short" },
};

function formatTimes(root, locale, onlyRelative = false) {
  for (const node of root.querySelectorAll(onlyRelative ? "time.ts[data-style=R]" : "time.ts")) {
    const date = new Date(node.getAttribute("datetime"));
    if (isNaN(date)) continue;
    const style = node.dataset.style || "f";
    node.textContent = style === "R" ? relative(date, locale) : fmt(date, TIME_STYLES[style] || TIME_STYLES.f, locale);
    node.title = fmt(date, { dateStyle: "full", timeStyle: "medium" }, locale);
  }
}

// -- Unicode emojis without a colour emoji font -----------------------------------------------
// The server marks every Unicode emoji (<span class="emoji-char" title=":name:">); one that no
// font of this machine can draw would be an empty box, so it shows its short name instead
// (":stopwatch:"). Whether a character is drawn is seen on a canvas: its picture is the
// same as that of a character no font has.

const glyphs = new Map();
let glyphCanvas = null;

function glyphPicture(text) {
  if (!glyphCanvas) {
    glyphCanvas = document.createElement("canvas");
    glyphCanvas.width = 48;
    glyphCanvas.height = 32;
  }
  const ctx = glyphCanvas.getContext("2d", { willReadFrequently: true });
  ctx.clearRect(0, 0, glyphCanvas.width, glyphCanvas.height);
  ctx.font = `24px ${getComputedStyle(document.documentElement).fontFamily}`;
  ctx.textBaseline = "top";
  ctx.fillStyle = "#000";
  ctx.fillText(text, 4, 2);
  return Array.from(ctx.getImageData(0, 0, glyphCanvas.width, glyphCanvas.height).data).join(",");
}

let noGlyph = null;

function drawable(text) {
  if (noGlyph === null) noGlyph = glyphPicture("\u{10fffd}"); // private use: no font draws it
  // Joiners, variation selectors and skin tones change a picture, never draw one.
  const points = Array.from(text).filter((c) => !/[\u200d\ufe0e\ufe0f\u20e3\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]/u.test(c));
  return points.every((c) => {
    if (!glyphs.has(c)) glyphs.set(c, glyphPicture(c) !== noGlyph);
    return glyphs.get(c);
  });
}

function emojiText(root) {
  for (const span of root.querySelectorAll("span.emoji-char[title]")) {
    if (span.classList.contains("as-text") || drawable(span.textContent)) continue;
    span.textContent = span.title;
    span.classList.add("as-text");
  }
}

function showClock() {
  if (!state.clock) return;
  const now = sandboxNow();
  document.getElementById("clock-now").textContent =
    fmt(now, { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" }) +
    ` (${zone()})`;
  const off = Math.round(state.clock.offset_seconds);
  let ahead = "";
  if (off > 0) {
    const d = Math.floor(off / 86400), h = Math.floor((off % 86400) / 3600), m = Math.floor((off % 3600) / 60);
    ahead = "moved ahead " + [d ? `${d} d` : "", h ? `${h} h` : "", m ? `${m} min` : ""].filter(Boolean).join(" ");
  }
  document.getElementById("clock-offset").textContent = ahead;
  const next = document.getElementById("next-timer");
  const nt = state.clock.next_timer;
  next.disabled = !nt;
  next.title = nt ? `${nt.what || nt.kind} at ${nt.at}` : "No deadline is pending";
  const closing = document.getElementById("to-closing");
  closing.hidden = !state.clock.closing;
  closing.title = state.clock.closing ? `Move to ${state.clock.closing}, when an unfinished day closes` : "";
}

function setClock(clock) {
  state.clock = clock;
  state.clockAt = performance.now();
  showClock();
}

async function moveClock(to, button) {
  const status = document.getElementById("clock-status");
  button.disabled = true;
  status.textContent = "moving time…";
  const answer = await post("/api/clock", { to });
  button.disabled = false;
  if (answer.error) {
    status.textContent = answer.error;
    return;
  }
  setClock(answer.clock);
  status.textContent = answer.moved_seconds > 0 ? "" : "already there";
  setTimeout(() => { if (status.textContent === "already there") status.textContent = ""; }, 2000);
}

// -- the colleagues play the day -----------------------------------------------------------

function showPlay(frame) {
  const button = document.getElementById("play-day");
  const status = document.getElementById("clock-status");
  button.disabled = frame.running;
  if (frame.running) status.textContent = `colleagues playing the day… ${frame.moves || 0} moves`;
  else if (frame.error) status.textContent = frame.error;
  else status.textContent = `day played: ${frame.moves} moves, ${frame.status === "over" ? "the day is finished" : `the day is ${frame.status}`}`;
}

async function playDay(button) {
  button.disabled = true;
  showPlay({ running: true, moves: 0 });
  const answer = await post("/api/play", {});
  showPlay({ running: false, ...answer });
}

function oneSlash(input) {
  const fixed = input.value.replace(/^\/{2,}/, "/");
  if (fixed === input.value) return;
  const pos = Math.max(1, (input.selectionStart || 0) - (input.value.length - fixed.length));
  input.value = fixed;
  input.setSelectionRange(pos, pos);
}

// -- a colleague's view ---------------------------------------------------------------------

class View {
  constructor(userId) {
    this.userId = userId;
    this.root = document.getElementById("view-template").content.firstElementChild.cloneNode(true);
    this.messages = this.root.querySelector(".messages");
    this.channels = [];
    this.channel = null;
    this.commands = { text: [], dm: [] };
    this.roles = [];
    this.unread = {};
    this.command = null;
    this.ws = null;
    this.closed = false;
    this.bind();
  }

  get me() {
    return state.users.find((u) => u.id === this.userId);
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws?user=${encodeURIComponent(this.userId)}`);
    this.ws = ws;
    ws.onmessage = (event) => this.receive(JSON.parse(event.data));
    ws.onclose = () => {
      if (this.closed || this.ws !== ws) return;
      this.root.classList.add("offline");
      setTimeout(() => { if (!this.closed && this.ws === ws) this.connect(); }, 1000);
    };
    ws.onopen = () => this.root.classList.remove("offline");
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
    this.root.remove();
  }

  switchTo(userId) {
    this.userId = userId;
    this.messages.replaceChildren();
    this.unread = {};
    this.channel = null;
    this.clearCommand();
    if (this.ws) { const old = this.ws; this.ws = null; old.close(); }
    this.connect();
    saveLayout();
  }

  receive(frame) {
    if (frame.t === "hello") return this.hello(frame);
    if (frame.t === "batch") return frame.items.forEach((item) => this.apply(item));
    if (frame.t === "clock") return setClock(frame.clock);
    if (frame.t === "play") return showPlay(frame);
    if (frame.t === "locale") return this.setLocale(frame.locale, frame.commands);
    if (frame.t === "channels") return this.setChannels(frame.channels);
    if (frame.t === "users") {
      state.users = frame.users;
      renderUserPickers();
    }
  }

  // The colleague's language changed (here or in another view of them): the command list
  // and the times follow at once; the messages stay as the bot wrote them.
  setLocale(locale, commands) {
    this.locale = locale;
    this.root.dataset.locale = locale;
    this.commands = commands;
    formatTimes(this.messages, locale);
    if (this.command) {
      const same = this.menu().find((c) => c.path === this.command.path);
      const values = this.optionValues();
      if (same) {
        this.pick(same.path);
        for (const input of this.root.querySelectorAll(".cmd-options .opt-input")) {
          if (values[input.name] !== undefined) input.value = values[input.name];
        }
      } else this.clearCommand();
    } else if (!this.root.querySelector(".suggest").hidden) this.suggest(true);
  }

  hello(frame) {
    state.users = frame.users;
    document.getElementById("guild-name").textContent = frame.guild;
    setClock(frame.clock);
    this.channels = frame.channels;
    this.commands = frame.commands;
    this.roles = frame.roles;
    this.locales = frame.locales;
    this.locale = frame.locale;
    this.root.dataset.locale = frame.locale;
    this.messages.replaceChildren();
    for (const ch of this.channels) this.ensureList(ch.id);
    renderUserPickers();
    this.renderTabs();
    this.show(this.channel && this.channels.some((c) => c.id === this.channel) ? this.channel : this.channels[0].id);
    this.root.dataset.user = this.userId;
  }

  list(channelId) {
    return this.messages.querySelector(`.channel-messages[data-channel="${channelId}"]`);
  }

  // The message list of a channel or thread (made hidden when first needed: a thread's
  // messages may arrive just before the channel list that names it).
  ensureList(channelId) {
    let list = this.list(channelId);
    if (list) return list;
    list = el("div", { class: "channel-messages", "data-channel": channelId });
    list.hidden = channelId !== this.channel;
    const ch = this.channels.find((c) => c.id === channelId);
    const text = !ch ? ""
      : ch.kind === "dm" ? `Your direct messages with ${ch.name}: private hands, challenges and titles arrive here. Commands work here too.`
      : ch.kind === "thread" ? `This is the start of the thread ${ch.name}, under #${ch.parent_name}. Commands typed here are used in the thread.`
      : `This is the start of #${ch.name}. Type / in the box below for the bot's commands (try /help).`;
    list.append(el("div", { class: "empty" }, text));
    this.messages.append(list);
    return list;
  }

  // Threads were started, archived, renamed or deleted: the tabs follow; an open thread
  // that is gone (deleted) gives way to its channel.
  setChannels(channels) {
    const open = this.channels.find((c) => c.id === this.channel);
    this.channels = channels;
    for (const ch of channels) {
      const list = this.ensureList(ch.id);
      const empty = list.querySelector(".empty");
      if (empty && ch.kind === "thread") empty.textContent = `This is the start of the thread ${ch.name}, under #${ch.parent_name}. Commands typed here are used in the thread.`;
    }
    if (!channels.some((c) => c.id === this.channel)) {
      const back = open && open.parent && channels.some((c) => c.id === open.parent) ? open.parent : channels[0].id;
      return this.show(back);
    }
    this.renderTabs();
    this.showHead();
  }
  apply(item) {
    if (item.t === "del") {
      const old = this.root.querySelector(`#m-${item.id}`);
      if (old) old.remove();
      return;
    }
    const list = this.ensureList(item.channel);
    const tpl = document.createElement("template");
    tpl.innerHTML = item.html;
    const node = tpl.content.firstElementChild;
    formatTimes(node, this.locale);
    emojiText(node);
    const old = list.querySelector(`#m-${item.id}`);
    const scroller = this.scroller(list);
    const stick = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
    if (old) {
      if (old.classList.contains("dismissed")) node.classList.add("dismissed");
      old.replaceWith(node);
    } else {
      const id = BigInt(item.id);
      let before = null;
      for (const child of Array.from(list.querySelectorAll(":scope > article.msg")).reverse()) {
        if (BigInt(child.dataset.messageId) < id) break;
        before = child;
      }
      list.insertBefore(node, before);
      if (list.hidden) {
        this.unread[item.channel] = (this.unread[item.channel] || 0) + 1;
        this.renderTabs();
      }
    }
    node.classList.add("fresh");
    setTimeout(() => node.classList.remove("fresh"), 600);
    if (!list.hidden && (stick || item.channel === this.channel && !old)) scroller.scrollTop = scroller.scrollHeight;
  }

  // What scrolls a channel's list: the view's message area, or the list itself when a
  // thread is open beside its channel (each side scrolls on its own).
  scroller(list) {
    return this.root.classList.contains("with-thread") ? list : this.messages;
  }

  renderTabs() {
    const tabs = this.root.querySelector(".tabs");
    tabs.replaceChildren();
    for (const ch of this.channels) {
      // As in Discord's channel list: active threads under their channel; an archived one
      // only while it is open (its starter message's chip opens it).
      if (ch.kind === "thread" && ch.archived && ch.id !== this.channel && !this.unread[ch.id]) continue;
      const label = ch.kind === "dm" ? `@ ${ch.name}` : ch.kind === "thread" ? `↳ ${ch.name}` : `# ${ch.name}`;
      const tab = el("button", { type: "button", class: "tab", "data-channel": ch.id, role: "tab" }, label);
      if (ch.kind === "dm") tab.title = "Direct messages with the bot";
      if (ch.kind === "thread") {
        tab.classList.add("thread-tab");
        tab.classList.toggle("archived", ch.archived);
        tab.title = `Thread in #${ch.parent_name}${ch.archived ? " (archived)" : ""}${ch.locked ? " (locked)" : ""}`;
      }
      tab.setAttribute("aria-selected", String(ch.id === this.channel));
      const n = this.unread[ch.id];
      if (n) tab.append(el("span", { class: "badge" }, String(n)));
      tabs.append(tab);
    }
  }

  // Show a channel; a thread opens beside its channel, as Discord's panel does (the
  // command box then writes in the thread; the channel's tab or × closes the panel).
  show(channelId) {
    this.channel = channelId;
    delete this.unread[channelId];
    const ch = this.channels.find((c) => c.id === channelId);
    const parent = ch && ch.kind === "thread" && this.list(ch.parent) ? ch.parent : null;
    this.root.classList.toggle("with-thread", parent !== null);
    for (const list of this.messages.children) {
      const id = list.dataset.channel;
      list.hidden = id !== channelId && id !== parent;
      list.classList.toggle("thread-panel", parent !== null && id === channelId);
      list.classList.toggle("parent-panel", parent !== null && id === parent);
      if (parent !== null && !list.hidden) list.scrollTop = list.scrollHeight;
    }
    if (parent !== null) delete this.unread[parent];
    this.showHead();
    this.renderTabs();
    this.clearCommand();
    this.messages.scrollTop = this.messages.scrollHeight;
  }

  showHead() {
    const ch = this.channels.find((c) => c.id === this.channel);
    if (!ch) return;
    const head = this.root.querySelector(".channel-head");
    head.classList.toggle("archived", Boolean(ch.archived));
    const title = this.root.querySelector(".channel-title");
    const topic = this.root.querySelector(".channel-topic");
    const input = this.root.querySelector(".cmd-input");
    if (ch.kind === "thread") {
      const close = el("button", { type: "button", class: "icon-btn close-thread", "data-channel": ch.parent, title: "Close the thread", "aria-label": "Close the thread" }, "×");
      title.replaceChildren(el("a", { class: "thread-parent", href: "#", "data-channel": ch.parent }, `# ${ch.parent_name}`), ` › ${ch.name}`, close);
      topic.textContent = ch.archived && ch.locked ? "Archived and locked thread: nothing can be sent here"
        : ch.archived ? "Archived thread: a command or a click here reopens it"
        : ch.locked ? "Locked thread: only moderators send here" : "Thread";
      input.placeholder = `Message ${ch.name}: type / for a command`;
      return;
    }
    title.textContent = ch.kind === "dm" ? `@ ${ch.name}` : `# ${ch.name}`;
    topic.textContent = ch.kind === "dm" ? "Direct messages: only you and the bot see them" : (ch.topic || "");
    input.placeholder = ch.kind === "dm" ? `Message @${ch.name}: type / for a command` : `Message #${ch.name}: type / for a command`;
  }

  get channelKind() {
    const ch = this.channels.find((c) => c.id === this.channel);
    return ch ? ch.kind : "text";
  }

  // -- acting ---------------------------------------------------------------------------

  async act(body, origin) {
    body.user = this.userId;
    if (origin) origin.classList.add("pending");
    const answer = await post("/api/act", body);
    if (origin) origin.classList.remove("pending");
    if (answer.modal) this.openModal(answer.modal);
    return answer;
  }

  flagMessage(article, text) {
    let note = article.querySelector(".msg-error");
    if (!note) {
      note = el("div", { class: "msg-error", role: "alert" });
      article.append(note);
    }
    note.textContent = text;
    setTimeout(() => note.remove(), 5000);
  }

  async click(button) {
    const article = button.closest("article.msg");
    const answer = await this.act({ kind: "click", message: article.dataset.messageId, custom_id: button.dataset.customId }, button);
    if (answer.error) this.flagMessage(article, answer.error);
  }

  async choose(select, values) {
    const article = select.closest("article.msg");
    select.classList.remove("open");
    const answer = await this.act({ kind: "select", message: article.dataset.messageId, custom_id: select.dataset.customId, values }, select);
    if (answer.error) this.flagMessage(article, answer.error);
  }

  openModal(html) {
    const dialog = this.root.querySelector(".modal-dialog");
    dialog.innerHTML = html;
    const form = dialog.querySelector("form.modal");
    emojiText(form);
    for (const s of form.querySelectorAll(".select")) s.classList.add("open");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const values = {};
      for (const field of form.querySelectorAll("input[type=text], textarea")) values[field.name] = field.value;
      for (const s of form.querySelectorAll(".select")) {
        values[s.dataset.customId] = Array.from(s.querySelectorAll("input:checked")).map((i) => i.value);
      }
      const answer = await this.act({ kind: "modal", interaction: form.dataset.interactionId, values }, form);
      if (answer.error) form.querySelector(".modal-error").textContent = answer.error;
      else dialog.close();
    });
    form.querySelector("[data-action=cancel]").addEventListener("click", () => dialog.close());
    dialog.showModal();
    const first = form.querySelector("input, textarea");
    if (first) first.focus();
  }

  // -- the command box ------------------------------------------------------------------

  menu() {
    const kind = this.channelKind === "thread" ? "text" : this.channelKind;  // a thread is in the server
    return this.commands[kind] || [];
  }

  // The command list for what is typed ("/" and the start of a command); ``open`` shows it
  // for an empty box too (a click on the box), without typing the slash for the colleague.
  suggest(open = false) {
    const input = this.root.querySelector(".cmd-input");
    const box = this.root.querySelector(".suggest");
    const text = open && !input.value ? "/" : input.value;
    box.replaceChildren();
    if (!text.startsWith("/") || this.command) { box.hidden = true; return; }
    const typed = text.replace(/^\/+/, "").trim().toLowerCase();
    const found = this.menu().filter((c) => c.label.toLowerCase().startsWith(typed) || c.path.startsWith(typed));
    for (const [i, cmd] of found.entries()) {
      const item = el("li", { role: "option", class: "suggestion", "data-path": cmd.path });
      if (i === 0) item.classList.add("active");
      item.append(el("span", { class: "suggest-name" }, `/${cmd.label}`));
      for (const opt of cmd.options) item.append(el("span", { class: "suggest-opt" }, opt.required ? opt.label : `[${opt.label}]`));
      item.append(el("span", { class: "suggest-desc" }, cmd.description));
      box.append(item);
    }
    if (!found.length) box.append(el("li", { class: "suggest-none" }, "No command matches"));
    box.hidden = false;
  }

  pick(path) {
    const cmd = this.menu().find((c) => c.path === path);
    if (!cmd) return;
    this.command = cmd;
    const input = this.root.querySelector(".cmd-input");
    input.value = `/${cmd.label}`;
    input.readOnly = true;
    this.root.querySelector(".suggest").hidden = true;
    this.root.querySelector(".cmd-error").textContent = "";
    const box = this.root.querySelector(".cmd-options");
    box.replaceChildren();
    const head = el("div", { class: "cmd-head" });
    head.append(el("strong", {}, `/${cmd.label}`), el("span", { class: "cmd-desc" }, cmd.description));
    const cancel = el("button", { type: "button", class: "icon-btn cmd-cancel", "aria-label": "Cancel the command" }, "×");
    cancel.addEventListener("click", () => this.clearCommand());
    head.append(cancel);
    box.append(head);
    for (const opt of cmd.options) box.append(this.optionField(opt));
    const first = box.querySelector("input, select");
    (first || this.root.querySelector(".send")).focus();
  }

  optionField(opt) {
    const wrap = el("label", { class: "opt-field", "data-option": opt.name });
    const name = el("span", { class: "opt-name" }, opt.label);
    if (opt.required) name.append(el("sup", { class: "required" }, "*"));
    wrap.append(name);
    let input;
    const choices = (items) => {
      input = el("select", { name: opt.name });
      input.append(el("option", { value: "" }, opt.required ? "choose…" : "(none)"));
      for (const [value, label] of items) input.append(el("option", { value: String(value) }, label));
    };
    if (opt.choices) choices(opt.choices.map((c) => [c.value, c.name]));
    else if (opt.kind === "user") choices(state.users.map((u) => [u.id, u.name]));
    else if (opt.kind === "role") choices(this.roles.map((r) => [r.id, "@" + r.name]));
    else if (opt.kind === "mentionable") choices([...state.users.map((u) => [u.id, u.name]), ...this.roles.map((r) => [r.id, "@" + r.name])]);
    else if (opt.kind === "channel") choices(this.channels.filter((c) => c.kind === "text").map((c) => [c.id, "#" + c.name]));
    else if (opt.kind === "boolean") choices([["true", "True"], ["false", "False"]]);
    else {
      const type = opt.kind === "integer" || opt.kind === "number" ? "number" : "text";
      input = el("input", { type, name: opt.name });
      if (type === "number") {
        input.step = opt.kind === "integer" ? "1" : "any";
        if (opt.min_value !== undefined) input.min = opt.min_value;
        if (opt.max_value !== undefined) input.max = opt.max_value;
        const range = [opt.min_value, opt.max_value].every((v) => v !== undefined) ? `${opt.min_value}–${opt.max_value}` : "";
        if (range) input.placeholder = range;
      }
      if (opt.autocomplete) {
        const listId = `ac-${Math.random().toString(36).slice(2)}`;
        const list = el("datalist", { id: listId });
        input.setAttribute("list", listId);
        wrap.append(list);
        let timer = null;
        input.addEventListener("input", () => {
          clearTimeout(timer);
          timer = setTimeout(() => this.autocomplete(opt.name, list), 200);
        });
        input.addEventListener("focus", () => this.autocomplete(opt.name, list));
      }
    }
    input.classList.add("opt-input");
    wrap.append(input);
    if (opt.description) wrap.append(el("small", { class: "opt-desc" }, opt.description));
    return wrap;
  }

  optionValues() {
    const values = {};
    for (const input of this.root.querySelectorAll(".cmd-options .opt-input")) {
      if (input.value !== "") values[input.name] = input.value;
    }
    return values;
  }

  async autocomplete(focused, list) {
    if (!this.command) return;
    const options = this.optionValues();
    options[focused] = options[focused] || "";
    const answer = await post("/api/act", { kind: "autocomplete", user: this.userId, channel: this.channel, command: this.command.path, options, focused });
    list.replaceChildren();
    for (const c of answer.choices || []) list.append(el("option", { value: String(c.value) }, c.name));
  }

  clearCommand() {
    this.command = null;
    const input = this.root.querySelector(".cmd-input");
    input.readOnly = false;
    input.value = "";
    this.root.querySelector(".cmd-options").replaceChildren();
    this.root.querySelector(".suggest").hidden = true;
  }

  async send() {
    const error = this.root.querySelector(".cmd-error");
    const input = this.root.querySelector(".cmd-input");
    error.textContent = "";
    if (!this.command) {
      const typed = input.value.trim().replace(/^\/+/, "").toLowerCase();
      if (!input.value.trim()) return;
      const exact = this.menu().find((c) => c.label.toLowerCase() === typed || c.path === typed);
      if (exact) { this.pick(exact.path); if (exact.options.some((o) => o.required)) return; }
      else if (!input.value.startsWith("/")) { error.textContent = "The bot only reads commands: type / and pick one."; return; }
      else { error.textContent = `/${typed} is not a command of this bot`; return; }
    }
    const send = this.root.querySelector(".send");
    send.disabled = true;
    const answer = await this.act({ kind: "slash", channel: this.channel, command: this.command.path, options: this.optionValues() });
    send.disabled = false;
    if (answer.error) { error.textContent = answer.error; return; }
    this.clearCommand();
    input.blur();
  }

  // -- events ---------------------------------------------------------------------------

  bind() {
    const root = this.root;
    root.addEventListener("click", (event) => {
      const target = event.target;
      const tab = target.closest(".tab");
      if (tab) return this.show(tab.dataset.channel);
      const parent = target.closest("a.thread-parent, .close-thread");
      if (parent) { event.preventDefault(); return this.show(parent.dataset.channel); }
      const chip = target.closest("[data-action=open-thread]");
      if (chip) {
        if (this.channels.some((c) => c.id === chip.dataset.channel)) return this.show(chip.dataset.channel);
        return this.flagMessage(chip.closest("article.msg"), "You cannot see this thread");
      }
      const jump = target.closest("a.jump");
      if (jump) {
        event.preventDefault();
        const channel = this.channels.find((c) => c.id === jump.dataset.channel) ? jump.dataset.channel : this.channels.find((c) => c.kind === "dm").id;
        this.show(channel);
        const node = jump.dataset.jump && this.root.querySelector(`#m-${jump.dataset.jump}`);
        if (node) { node.scrollIntoView({ block: "center" }); node.classList.add("jumped"); setTimeout(() => node.classList.remove("jumped"), 2000); }
        return;
      }
      const button = target.closest("button[data-action=click]");
      if (button && !button.disabled && !button.classList.contains("pending")) return this.click(button);
      const dismiss = target.closest("[data-action=dismiss]");
      if (dismiss) { dismiss.closest("article.msg").classList.add("dismissed"); return; }
      const head = target.closest(".msg .select .select-placeholder");
      if (head) {
        const select = head.parentElement;
        if (!select.classList.contains("disabled")) {
          for (const other of root.querySelectorAll(".msg .select.open")) if (other !== select) other.classList.remove("open");
          select.classList.toggle("open");
        }
        return;
      }
      const confirm = target.closest(".select-confirm");
      if (confirm) {
        const select = confirm.closest(".select");
        const values = Array.from(select.querySelectorAll("input:checked")).map((i) => i.value);
        return this.choose(select, values);
      }
      const item = target.closest(".suggestion");
      if (item) return this.pick(item.dataset.path);
    });
    root.addEventListener("change", (event) => {
      const target = event.target;
      const select = target.closest(".select");
      if (select && select.closest(".msg")) {
        const max = Number(select.dataset.max), min = Number(select.dataset.min);
        const checked = select.querySelectorAll("input:checked");
        if (target.type === "radio") return this.choose(select, [target.value]);
        for (const box of select.querySelectorAll("input[type=checkbox]:not(:checked)")) box.disabled = checked.length >= max;
        const head = select.querySelector(".select-placeholder");
        if (!head.dataset.placeholder) head.dataset.placeholder = head.textContent;
        const labels = Array.from(checked).map((i) => i.nextElementSibling.textContent);
        head.textContent = labels.length ? labels.join(", ") : head.dataset.placeholder;
        head.classList.toggle("chosen", labels.length > 0);
        const confirm = select.querySelector(".select-confirm");
        if (confirm) confirm.disabled = checked.length < min || checked.length > max;
        return;
      }
      if (target.classList.contains("who")) return this.switchTo(target.value);
      if (target.classList.contains("lang")) return post("/api/user", { user: this.userId, locale: target.value });
      if (target.classList.contains("dms")) return post("/api/user", { user: this.userId, dms_open: target.checked });
    });
    const input = root.querySelector(".cmd-input");
    // As in Discord: "/" typed into the box opens the command list and what follows filters
    // it. One slash only, whatever was typed or pasted ("//da" is "/da").
    input.addEventListener("input", () => { oneSlash(input); this.suggest(); });
    input.addEventListener("click", () => { if (!input.value && !this.command) this.suggest(true); });
    input.addEventListener("keydown", (event) => {
      const box = root.querySelector(".suggest");
      if (box.hidden) {
        if (event.key === "Backspace" && this.command && input.readOnly) { event.preventDefault(); this.clearCommand(); input.value = "/"; this.suggest(); }
        return;
      }
      const items = Array.from(box.querySelectorAll(".suggestion"));
      const active = items.findIndex((i) => i.classList.contains("active"));
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (!items.length) return;
        const next = (active + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
        items.forEach((i, n) => i.classList.toggle("active", n === next));
      } else if ((event.key === "Enter" || event.key === "Tab") && items.length) {
        event.preventDefault();
        this.pick(items[Math.max(active, 0)].dataset.path);
      } else if (event.key === "Escape") {
        box.hidden = true;
      }
    });
    root.querySelector(".composer").addEventListener("submit", (event) => { event.preventDefault(); this.send(); });
    root.querySelector(".close-view").addEventListener("click", () => {
      state.views = state.views.filter((v) => v !== this);
      this.close();
      saveLayout();
      renderUserPickers();
    });
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape") for (const s of root.querySelectorAll(".msg .select.open")) s.classList.remove("open");
    });
  }
}

// -- layout ---------------------------------------------------------------------------------

function renderUserPickers() {
  for (const view of state.views) {
    const who = view.root.querySelector(".who");
    who.replaceChildren();
    for (const u of state.users) {
      const option = el("option", { value: u.id }, u.owner ? `${u.name} (owner)` : u.name);
      option.selected = u.id === view.userId;
      who.append(option);
    }
    const me = view.me;
    const lang = view.root.querySelector(".lang");
    lang.replaceChildren();
    for (const [code, name] of Object.entries(view.locales || {})) {
      const option = el("option", { value: code }, name);
      option.selected = me && me.locale === code;
      lang.append(option);
    }
    view.root.querySelector(".dms").checked = !me || me.dms_open;
    view.root.querySelector(".close-view").hidden = state.views.length < 2;
  }
  document.getElementById("add-view").disabled = state.views.length >= 4;
}

function addView(userId) {
  const view = new View(userId);
  state.views.push(view);
  document.getElementById("views").append(view.root);
  document.getElementById("views").dataset.count = String(state.views.length);
  view.connect();
  return view;
}

function saveLayout() {
  const ids = state.views.map((v) => v.userId).join(",");
  history.replaceState(null, "", `#as=${ids}`);
  document.getElementById("views").dataset.count = String(state.views.length);
}

async function start() {
  const res = await fetch("/api/state");
  const data = await res.json();
  state.users = data.users;
  setClock(data.clock);
  const known = new Set(state.users.map((u) => u.id));
  const wanted = (new URLSearchParams(location.hash.slice(1)).get("as") || "").split(",").filter(Boolean);
  const missing = wanted.filter((id) => !known.has(id));
  const ids = wanted.filter((id) => known.has(id));
  if (!ids.length) ids.push(state.users[0].id);
  for (const id of ids.slice(0, 4)) addView(id);
  if (missing.length) document.getElementById("clock-status").textContent = `No colleague ${missing.join(", ")} in this sandbox`;
  saveLayout();
  renderUserPickers();
  document.getElementById("add-view").addEventListener("click", () => {
    const used = new Set(state.views.map((v) => v.userId));
    const next = state.users.find((u) => !used.has(u.id)) || state.users[0];
    addView(next.id);
    saveLayout();
    renderUserPickers();
  });
  const play = document.getElementById("play-day");
  play.addEventListener("click", () => playDay(play));
  for (const button of document.querySelectorAll("[data-to]")) {
    button.addEventListener("click", () => moveClock(button.dataset.to, button));
  }
  document.addEventListener("click", (event) => {
    if (!event.target.closest(".select")) for (const s of document.querySelectorAll(".msg .select.open")) s.classList.remove("open");
  });
  setInterval(() => {
    showClock();
    for (const view of state.views) formatTimes(view.messages, view.locale, true);
  }, 1000);
}

document.addEventListener("DOMContentLoaded", start);
