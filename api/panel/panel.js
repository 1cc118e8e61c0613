// skillpm skills panel: talks to /api/skills on the same origin. The token
// comes from the URL once, then lives in sessionStorage; it is sent only in
// the X-Skillpm-Token header of requests that change something.
"use strict";

(function () {
  const TOKEN_KEY = "skillpm-token";
  const $ = (id) => document.getElementById(id);
  let token = "";
  let pending = null; // the install request the plan was made for

  function initToken() {
    const url = new URL(window.location.href);
    const t = url.searchParams.get("token");
    if (t) {
      sessionStorage.setItem(TOKEN_KEY, t);
      url.searchParams.delete("token");
      history.replaceState(null, "", url.pathname + url.search + url.hash);
    }
    token = sessionStorage.getItem(TOKEN_KEY) || "";
    $("token-state").textContent = token
      ? "Connected to the local skillpm server."
      : "No token: reading works, but installing and removing need the URL skillpm serve printed.";
  }

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c);
    return e;
  }

  function tierBadge(tier) {
    const t = ["verified", "community", "experimental"].includes(tier) ? tier : "experimental";
    const icon = { verified: "✔", community: "●", experimental: "⚠" }[t];
    return el("span", { class: "badge tier-" + t, "data-tier": t }, icon + " " + tier);
  }

  // breakable renders a long reference (a registry path) with break
  // opportunities after its separators, so a narrow cell wraps it at a
  // "/" or ":" rather than in the middle of a name.
  function breakable(text) {
    const out = [];
    for (const part of text.split(/(?<=[\/:@])/)) out.push(el("span", { class: "token", text: part }), el("wbr"));
    return out;
  }

  function say(msg) { $("status").textContent = msg; }

  function clearError() { $("errors").replaceChildren(); }

  // showError renders an API error (the CLI's envelope: class, message,
  // hint) into box, the banner at the top unless the error belongs to a
  // row: its message, its hint, then each refusal.
  function showError(err, box) {
    box = box || $("errors");
    box.replaceChildren(el("strong", { text: "Error: " }), document.createTextNode(err.message || String(err)));
    if (err.hint) box.append(el("p", { class: "hint", text: err.hint }));
    if (err.refusals && err.refusals.length) {
      const ul = el("ul");
      for (const r of err.refusals) ul.append(el("li", { text: r.reason + (r.fix ? " — " + r.fix : "") }));
      box.append(ul);
    }
    if (err.dependents && err.dependents.length) {
      box.append(el("p", { text: "Needed by: " + err.dependents.join(", ") }));
    }
  }

  async function api(method, path, body) {
    const headers = {};
    if (method !== "GET") headers["X-Skillpm-Token"] = token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const err = (data && data.error) || { message: res.status + " " + res.statusText };
      throw err;
    }
    return data;
  }

  function permsCell(s) {
    const td = el("td", { class: "perms", "data-label": "Permissions" });
    if (!s.permissions.length) td.append(el("span", { class: "muted", text: "none" }));
    for (const p of s.permissions) {
      const g = (s.grants || []).find((x) => x.permission === p);
      td.append(el("span", { class: "perm" }, el("span", { class: "token", text: p }), g ? el("span", { class: "by", text: " (" + g.by + ")" }) : null));
    }
    return td;
  }

  async function loadInstalled() {
    const box = $("installed");
    try {
      const data = await api("GET", "/api/skills");
      fillHosts(data.hosts, data.default_host);
      const byHost = new Map();
      for (const s of data.skills) {
        const h = s.root.host;
        if (!byHost.has(h)) byHost.set(h, []);
        byHost.get(h).push(s);
      }
      if (byHost.size === 0) {
        box.replaceChildren(el("p", { class: "muted", id: "no-skills", text: "No skills installed in any host." }));
        return;
      }
      const parts = [];
      for (const [host, skills] of byHost) {
        const hid = "host-" + host;
        const table = el("table", { "aria-labelledby": hid },
          el("thead", {}, el("tr", {}, ...["Name", "Version", "Tier", "Source", "Permissions", "Scope", ""].map((h) => el("th", { scope: "col", text: h })))));
        const tbody = el("tbody");
        for (const s of skills) {
          const tr = el("tr", { "data-skill": s.name, "data-host": s.root.host, "data-scope": s.root.scope });
          tr.append(
            el("td", { "data-label": "Name" }, el("strong", { class: "token", text: s.name }), s.edited ? el("span", { class: "muted", text: " (edited)" }) : null,
              s.shadowed_by ? el("span", { class: "muted", text: " (shadowed)" }) : null,
              ...(s.advisories || []).map((a) => el("span", { class: "advisory" + (a.refuses ? " refuses" : ""), "data-advisory": a.id,
                text: " ⚠ advisory " + a.id + " (" + a.kind + (a.severity ? ", " + a.severity : "") + ")" + (a.summary ? ": " + a.summary : "") +
                  (a.refuses ? " — skillpm quarantine moves it out" : "") }))),
            el("td", { "data-label": "Version" }, el("span", { class: "token", text: s.version || "—" }),
              s.update ? el("span", { class: "update-available", text: " (update available: " + s.update + ")" }) : null),
            el("td", { "data-label": "Tier" }, tierBadge(s.tier)),
            el("td", { class: "source", "data-label": "Source" }, ...(s.source ? breakable(s.source) : [s.managed ? "—" : "not installed by skillpm"])),
            permsCell(s),
            el("td", { "data-label": "Scope", text: s.root.scope }));
          const act = el("td", { class: "actions-cell" });
          if (s.managed) {
            const b = el("button", { type: "button", class: "danger", "aria-label": "Remove " + s.name + " from " + s.root.host + " (" + s.root.scope + ")", text: "Remove" });
            b.addEventListener("click", () => askRemove(s, act, b));
            if (s.update) {
              const u = el("button", { type: "button", class: "update", "aria-label": "Update " + s.name + " to " + s.update + " in " + s.root.host, text: "Update" });
              u.addEventListener("click", () => updateSkill(s, u));
              act.append(u, " ");
            }
            act.append(b);
            // Where a refused action of this row says why, next to it.
            act.append(el("div", { class: "row-error", role: "alert", "aria-live": "assertive" }));
          }
          tr.append(act);
          tbody.append(tr);
        }
        table.append(tbody);
        parts.push(el("h3", { id: hid, text: host }), table);
      }
      box.replaceChildren(...parts);
    } catch (err) {
      showError(err);
    }
  }

  function fillHosts(hosts, def) {
    const sel = $("host");
    if (sel.options.length) return;
    for (const h of hosts) {
      const o = el("option", { value: h, text: h });
      if (h === def) o.selected = true;
      sel.append(o);
    }
  }

  // updateSkill updates one skill within its range, as skillpm update,
  // with the grants the user gave when the new version asked for them.
  async function updateSkill(s, button, grants) {
    clearError();
    button.disabled = true;
    say("Updating " + s.name + " in " + s.root.host + "…");
    try {
      const res = await api("POST", "/api/skills/update", { name: s.name, host: s.root.host, scope: s.root.scope, grants: grants || [] });
      const moved = res.changes.map((c) => c.name + " " + (c.from || "(new)") + " → " + c.to);
      say(moved.length ? "Updated " + moved.join(", ") + "." : s.name + " is up to date.");
      await loadInstalled();
      $("installed-heading").focus();
    } catch (err) {
      button.disabled = false;
      if (!grants && needsConsentOnly(err) && !err.needs.allow_experimental) {
        askUpdateConsent(s, button, err);
        return;
      }
      say("");
      showError(err);
    }
  }

  // needsConsentOnly says a refusal is answered by consent alone: no
  // permission above the tier's ceiling, nothing refused outright.
  function needsConsentOnly(err) {
    return err.class === "trust" && err.needs && (err.needs.grants.length || err.needs.allow_experimental) &&
      (err.refusals || []).every((r) => r.kind !== "above_ceiling" && r.kind !== "refused");
  }

  // askUpdateConsent asks, in the row, whether the new version may have
  // the permissions it adds; nothing is granted until "Allow" is pressed.
  function askUpdateConsent(s, button, err) {
    const asks = (err.refusals || []).map((r) => {
      const by = r.signers && r.signers.length ? ", signed by " + r.signers.join(", ") : ", not signed by anyone the trust policy names";
      return (r.skill || s.name) + " (" + r.tier + by + ") asks for " + r.permission;
    });
    const q = el("span", { class: "confirm-update", role: "group", "aria-label": "Consent for updating " + s.name },
      el("span", { class: "update-question", text: asks.join("; ") + ". Allow and update? " }));
    const yes = el("button", { type: "button", class: "confirm-yes", text: "Allow and update" });
    const no = el("button", { type: "button", class: "confirm-no", text: "Keep " + s.version });
    yes.addEventListener("click", () => { q.replaceWith(button); updateSkill(s, button, err.needs.grants); });
    no.addEventListener("click", () => { q.replaceWith(button); button.focus(); say(""); });
    q.append(yes, " ", no);
    button.replaceWith(q);
    say("Consent needed to update " + s.name + ".");
    yes.focus();
  }

  // askRemove asks before removing: the row's button becomes a question
  // with "Remove" and "Keep"; nothing is removed until it is answered.
  function askRemove(s, cell, button) {
    const q = el("span", { class: "confirm-remove", role: "group", "aria-label": "Confirm removal of " + s.name },
      el("span", { text: "Remove " + s.name + " from " + s.root.host + "? " }));
    const yes = el("button", { type: "button", class: "danger confirm-yes", text: "Remove" });
    const no = el("button", { type: "button", class: "confirm-no", text: "Keep" });
    yes.addEventListener("click", () => removeSkill(s, yes, cell));
    no.addEventListener("click", () => { q.replaceWith(button); button.focus(); say(""); });
    q.append(yes, " ", no);
    button.replaceWith(q);
    say("Remove " + s.name + " from " + s.root.host + "? Press Remove to confirm, Keep to cancel.");
    no.focus();
  }

  // removeSkill removes one skill; a refusal (another skill needs it,
  // it was edited, the root is locked) is shown in its row, where the
  // user pressed Remove, not in the banner at the top of the page.
  async function removeSkill(s, button, cell) {
    clearError();
    const rowErr = cell.querySelector(".row-error");
    rowErr.replaceChildren();
    button.disabled = true;
    say("Removing " + s.name + " from " + s.root.host + "…");
    try {
      const q = new URLSearchParams({ host: s.root.host, scope: s.root.scope });
      const res = await api("DELETE", "/api/skills/" + encodeURIComponent(s.name) + "?" + q);
      say("Removed " + res.removed.join(", ") + " from " + s.root.host + ".");
      await loadInstalled();
      $("installed-heading").focus();
    } catch (err) {
      button.disabled = false;
      say("Could not remove " + s.name + ".");
      showError(err, rowErr);
      button.focus();
    }
  }

  function request(dryRun) {
    const grants = [...document.querySelectorAll("#consent-items input[data-grant]:checked")].map((c) => c.dataset.grant);
    const exp = document.querySelector("#consent-items input[data-experimental]:checked");
    return { ref: $("ref").value.trim(), host: $("host").value, scope: $("scope").value, grants, allow_experimental: !!exp, dry_run: dryRun };
  }

  // renderPlan lists what the install changes: the skills of the
  // solution that are added or move, not those already installed as they
  // are (the changes the dry run reports).
  function renderPlan(res) {
    const changing = new Set(res.changes.map((c) => c.name));
    const skills = res.skills.filter((s) => changing.has(s.name));
    if (!skills.length) return el("p", { id: "plan-nothing", text: "Nothing to install: " + res.skills.map((s) => s.name + " " + s.version).join(", ") + " already installed." });
    const table = el("table", { "aria-labelledby": "plan-heading" },
      el("thead", {}, el("tr", {}, ...["Name", "Version", "Tier", "Permissions"].map((h) => el("th", { scope: "col", text: h })))));
    const tbody = el("tbody");
    for (const s of skills) {
      tbody.append(el("tr", { "data-plan": s.name }, el("td", { "data-label": "Name" }, el("span", { class: "token", text: s.name })),
        el("td", { "data-label": "Version" }, el("span", { class: "token", text: s.version })),
        el("td", { "data-label": "Tier" }, tierBadge(s.tier)), permsCell(s)));
    }
    table.append(tbody);
    return table;
  }

  // consentFor is the request (reference, host, scope) the consent boxes
  // were asked for: a check of anything else starts without them.
  let consentFor = "";

  function requestKey(req) { return [req.ref, req.host, req.scope].join("\n"); }

  function clearConsent() {
    $("consent-items").replaceChildren();
    $("consent").hidden = true;
    consentFor = "";
  }

  // renderConsent lists what a refused dry run needs; keeps earlier ticks
  // of the same request.
  function renderConsent(needs, key) {
    const items = $("consent-items");
    const had = new Set([...items.querySelectorAll("input:checked")].map((c) => c.dataset.grant || "experimental"));
    consentFor = key;
    items.replaceChildren();
    let i = 0;
    if (needs.allow_experimental) {
      const id = "consent-exp";
      const cb = el("input", { type: "checkbox", id, "data-experimental": "1" });
      cb.checked = had.has("experimental");
      items.append(el("label", { for: id }, cb, "Allow installing an experimental (unsigned or untrusted) skill"));
    }
    for (const g of needs.grants) {
      const id = "consent-" + (i++);
      const cb = el("input", { type: "checkbox", id, "data-grant": g });
      cb.checked = had.has(g);
      items.append(el("label", { for: id }, cb, "Grant ", el("code", { class: "token", text: g })));
    }
    $("consent").hidden = !items.children.length;
  }

  // check asks for a dry run and shows the plan, or what it needs.
  async function check() {
    clearError();
    $("progress").replaceChildren();
    // Boxes ticked for another skill, host or scope are not this
    // request's: they would grant it what was never asked about.
    if (consentFor !== requestKey(request(true))) clearConsent();
    // Nor is the plan of the previous check this one's.
    $("plan-body").replaceChildren();
    $("confirm").disabled = true;
    pending = null;
    const req = request(true);
    say("Checking " + req.ref + "…");
    $("plan").hidden = false;
    try {
      const res = await api("POST", "/api/skills/install", req);
      pending = req;
      $("plan-body").replaceChildren(renderPlan(res));
      const changing = res.skills.filter((s) => res.changes.some((c) => c.name === s.name));
      if (!changing.length) {
        say("Nothing to install: already installed.");
        $("confirm").disabled = true;
      } else {
        say("Ready to install " + changing.map((s) => s.name + " " + s.version + " (" + s.tier + ")").join(", ") + ".");
        $("confirm").disabled = false;
      }
    } catch (err) {
      pending = null;
      $("confirm").disabled = true;
      $("plan-body").replaceChildren();
      if (needsConsentOnly(err)) {
        // Consent is a question to answer, not an error: which skill, at
        // which tier, asks for which permission.
        renderConsent(err.needs, requestKey(req));
        const asks = el("ul", { id: "consent-question" });
        for (const r of err.refusals || []) {
          const what = r.permission ? "asks for " + r.permission : "is experimental (no signature the trust policy trusts)";
          const by = r.signers && r.signers.length ? ", signed by " + r.signers.join(", ") : ", not signed by anyone the trust policy names";
          asks.append(el("li", { text: (r.skill || req.ref) + " (" + r.tier + by + ") " + what + "." }));
        }
        $("plan-body").replaceChildren(el("p", { text: "Allow these permissions? Tick what you accept, then Check again." }), asks);
        say("Consent needed for " + req.ref + ".");
        const recheck = el("button", { type: "button", id: "recheck", text: "Check again" });
        recheck.addEventListener("click", check);
        $("plan-body").append(recheck);
        $("consent-items").querySelector("input")?.focus();
        return;
      }
      say("");
      showError(err);
    }
    $("plan-heading").focus();
  }

  // install runs the install the plan was made for, streaming its stages.
  async function install() {
    if (!pending) return;
    clearError();
    const req = Object.assign({}, pending, { dry_run: false });
    $("confirm").disabled = true;
    const list = $("progress");
    list.replaceChildren();
    say("Installing " + req.ref + "…");
    try {
      const res = await fetch("/api/skills/install", {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "application/x-ndjson", "X-Skillpm-Token": token },
        body: JSON.stringify(req),
      });
      if (!res.ok) {
        let data = null;
        try { data = await res.json(); } catch (e) { data = null; }
        throw (data && data.error) || { message: res.status + " " + res.statusText };
      }
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      let last = null;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line);
          last = ev;
          const what = ev.stage + (ev.skill ? " " + ev.skill : "") + (ev.root ? " " + ev.root : "") + (ev.message ? ": " + ev.message : "");
          list.append(el("li", { text: what }));
        }
      }
      if (!last) throw { message: "the server closed the stream without a result" };
      if (last.stage === "error") throw last.error;
      const r = last.result;
      const installed = r.roots.flatMap((x) => x.installed), unchanged = r.roots.flatMap((x) => x.unchanged);
      say(installed.length ? "Installed " + installed.join(", ") + " into " + req.host + "." : "Already up to date: " + unchanged.join(", ") + ".");
      $("plan").hidden = true;
      pending = null;
      clearConsent();
      await loadInstalled();
      $("installed-heading").focus();
    } catch (err) {
      say("");
      $("confirm").disabled = false;
      showError(err);
    }
  }

  async function search(ev) {
    ev.preventDefault();
    clearError();
    const out = $("results");
    out.replaceChildren();
    try {
      const data = await api("GET", "/api/skills/search?" + new URLSearchParams({ q: $("q").value }));
      const results = Array.isArray(data.results) ? data.results : [];
      if (!results.length) out.append(el("li", { class: "muted", text: "No match." }));
      for (const r of results) {
        const name = r.name || r.ref || String(r);
        const b = el("button", { type: "button", text: "Use", "aria-label": "Put " + name + " in the install box" });
        b.addEventListener("click", () => { $("ref").value = r.ref || name; $("ref").focus(); });
        out.append(el("li", {}, el("strong", { text: name }), r.version ? " " + r.version + " " : " ",
          r.tier ? tierBadge(r.tier) : null, r.description ? " — " + r.description + " " : " ", b));
      }
      say(results.length + " result(s) for " + $("q").value + ".");
    } catch (err) {
      showError(err);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    initToken();
    $("install-form").addEventListener("submit", (ev) => { ev.preventDefault(); check(); });
    $("confirm").addEventListener("click", install);
    $("cancel").addEventListener("click", () => { $("plan").hidden = true; pending = null; clearConsent(); say(""); $("ref").focus(); });
    $("search-form").addEventListener("submit", search);
    $("refresh").addEventListener("click", loadInstalled);
    loadInstalled();
  });
})();
