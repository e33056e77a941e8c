// The dashboard's only script: the live parts. Pages work without it; with it, the
// Live page receives new runs as server-sent events and draws its chart, and a page
// section marked data-watch fetches itself again when the server says it changed.
"use strict";

(function () {
  const MAX_ROWS = 200;
  const MINUTES = 30;

  // Live runs: rows arrive in batches (a JSON array per event), newest last.
  function liveRuns(container) {
    const status = document.getElementById("live-status");
    const tbody = container.querySelector("tbody");
    const buckets = new Map();
    let received = 0;

    function count(t, decision, ms) {
      const minute = Math.floor(t / 60000);
      let b = buckets.get(minute);
      if (!b) {
        b = { n: 0, deny: 0, error: 0, ms: [] };
        buckets.set(minute, b);
      }
      b.n += 1;
      if (decision === "deny") b.deny += 1;
      if (decision === "error" || decision === "interrupted") b.error += 1;
      b.ms.push(ms);
    }

    const seed = document.getElementById("seed");
    if (seed) {
      for (const [t, decision, ms] of JSON.parse(seed.textContent || "[]")) count(t, decision, ms);
    }

    let drawPending = false;
    function drawSoon() {
      if (drawPending) return;
      drawPending = true;
      setTimeout(() => { drawPending = false; draw(); }, 500);
    }

    function draw() {
      const svg = document.getElementById("chart");
      if (!svg) return;
      const minutes = [...buckets.keys()].sort((a, b) => a - b).slice(-MINUTES);
      for (const old of [...buckets.keys()]) if (!minutes.includes(old)) buckets.delete(old);
      const W = 720, H = 200, pad = 24, slot = (W - 2 * pad) / MINUTES;
      const maxN = Math.max(1, ...minutes.map((m) => buckets.get(m).n));
      const stats = minutes.map((m) => {
        const sorted = buckets.get(m).ms.slice().sort((a, b) => a - b);
        const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] || 0;
        return { p50: at(0.5), p95: at(0.95) };
      });
      const maxMs = Math.max(1, ...stats.map((s) => s.p95));
      const y = (v, max) => H - pad - (v / max) * (H - 2 * pad);
      let out = "";
      minutes.forEach((m, i) => {
        const b = buckets.get(m), x = pad + i * slot;
        out += `<rect class="emits" x="${x}" y="${y(b.n, maxN)}" width="${slot * 0.8}" height="${H - pad - y(b.n, maxN)}"><title>${new Date(m * 60000).toISOString().slice(11, 16)}: ${b.n} emits, ${b.deny} denies, ${b.error} errors</title></rect>`;
        out += `<rect class="denies" x="${x}" y="${y(b.deny, maxN)}" width="${slot * 0.4}" height="${H - pad - y(b.deny, maxN)}"></rect>`;
        out += `<rect class="errors" x="${x + slot * 0.4}" y="${y(b.error, maxN)}" width="${slot * 0.4}" height="${H - pad - y(b.error, maxN)}"></rect>`;
      });
      for (const key of ["p50", "p95"]) {
        const points = stats.map((s, i) => `${pad + i * slot + slot * 0.4},${y(s[key], maxMs)}`).join(" ");
        out += `<polyline class="${key}" fill="none" points="${points}"></polyline>`;
      }
      out += `<text x="${pad}" y="14">${maxN} emits/min</text><text x="${W - pad}" y="14" text-anchor="end">${maxMs.toFixed(1)} ms</text>`;
      svg.innerHTML = out;
    }

    const source = new EventSource(container.dataset.stream);
    source.onopen = () => { if (status) status.textContent = "Live: waiting for runs."; };
    source.onerror = () => { if (status) status.textContent = "Disconnected; reconnecting…"; };
    source.addEventListener("runs", (event) => {
      const batch = JSON.parse(event.data);
      const template = document.createElement("tbody");
      for (const run of batch) {
        template.innerHTML = run.html;
        const row = template.firstElementChild;
        const old = tbody.querySelector(`tr[data-run="${run.run_id}"]`);
        if (old) {
          old.replaceWith(row);
        } else {
          tbody.insertBefore(row, tbody.firstElementChild);
          received += 1;
          if (run.decision !== "running") count(run.started_at_ms, run.decision, run.duration_ms);
        }
      }
      while (tbody.children.length > MAX_ROWS) tbody.lastElementChild.remove();
      if (status) status.textContent = `Live: ${received} new run(s) since this page opened.`;
      drawSoon();
    });
    draw();
  }

  // A section that follows a watch stream: on "changed", fetch the page again and swap
  // the section, then follow the new section's stream.
  function watch(section) {
    const source = new EventSource(section.dataset.watch);
    source.addEventListener("changed", async () => {
      source.close();
      try {
        const response = await fetch(window.location.href, { credentials: "same-origin" });
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.getElementById("live");
        if (fresh) {
          section.replaceWith(fresh);
          watch(fresh);
          return;
        }
      } catch (_) {
        // Fall through: try again on the same stream.
      }
      setTimeout(() => watch(section), 2000);
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    const live = document.querySelector("[data-stream]");
    if (live) liveRuns(live);
    const section = document.querySelector("section[data-watch]");
    if (section) watch(section);
  });
})();
