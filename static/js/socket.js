// The table socket (/ws/rooms/<code>/): reconnects by itself with backoff; the server sends a
// snapshot on every (re)connect, so the table is redrawn from the truth after any gap.
const FATAL = new Set([4401, 4403, 4404, 4410]); // unauthenticated, forbidden, no room, room closed
const PING_MS = 15000;
const SILENT_MS = 40000; // no frame for this long: the connection is dead even if the browser has not noticed
// Whether the page is in view goes to the server as it changes, and again this often while it stays in view: the
// server lets it lapse after five minutes (a push waits for a player none of whose pages is in view: games/notify.py).
const VISIBLE_MS = 120000;

export class TableSocket {
  constructor(url, { onFrame, onStatus }) {
    this.url = url;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.attempts = 0;
    this.ws = null;
    this.timer = null;
    this.stopped = false;
    window.addEventListener("online", () => this.retryNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.retryNow();
      this.sendVisibility();
    });
  }

  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.lastFrame = Date.now();
      this.onStatus("open");
      this.ping = setInterval(() => {
        if (Date.now() - this.lastFrame > SILENT_MS) ws.close();
        else this.send({ type: "ping" });
      }, PING_MS);
      this.sendVisibility();
      this.shown = setInterval(() => {
        if (document.visibilityState === "visible") this.sendVisibility();
      }, VISIBLE_MS);
    };
    ws.onmessage = (msg) => {
      this.lastFrame = Date.now();
      let frame;
      try {
        frame = JSON.parse(msg.data);
      } catch {
        return;
      }
      this.onFrame(frame);
    };
    ws.onclose = (ev) => {
      clearInterval(this.ping);
      clearInterval(this.shown);
      if (this.ws !== ws) return;
      this.ws = null;
      if (FATAL.has(ev.code)) {
        this.stopped = true;
        this.onStatus("closed", ev.code);
        return;
      }
      this.onStatus("lost");
      this.schedule();
    };
  }

  schedule() {
    // 0.5 s, 1 s, 2 s ... up to 10 s, with jitter so that a restarted server is not hit all at once.
    const delay = Math.min(10000, 500 * 2 ** this.attempts) * (0.75 + Math.random() * 0.5);
    this.attempts += 1;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  retryNow() {
    if (!this.stopped && !this.ws) this.connect();
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  sendVisibility() {
    this.send({ type: "visibility", visible: document.visibilityState === "visible" });
  }

  send(frame) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }
}
