// pkgintel web pages: progressive enhancement only; every page works without this script.
"use strict";
document.documentElement.classList.add("js");

function setUpCopyButtons() {
  for (const button of document.querySelectorAll("button.copy[data-copy]")) {
    button.addEventListener("click", async () => {
      const source = document.getElementById(button.dataset.copy);
      if (!source) return;
      try {
        await navigator.clipboard.writeText(source.textContent.trim());
        button.textContent = "Copied";
      } catch (err) {
        button.textContent = "Select and copy";
      }
      setTimeout(() => { button.textContent = "Copy"; }, 2000);
    });
  }
}

function advisoryItem(data) {
  const li = document.createElement("li");
  li.className = "live";
  const link = document.createElement("a");
  link.href = "/p/" + encodeURIComponent(data.ecosystem) + "/" + data.package.split("/").map(encodeURIComponent).join("/");
  link.textContent = data.ecosystem + " / " + data.package;
  const id = document.createElement("code");
  id.textContent = data.vuln_id;
  const summary = document.createElement("p");
  summary.textContent = (data.summary || "") + (data.published_at ? " (published " + data.published_at.slice(0, 10) + ")" : "");
  li.append(link, " ", id, summary);
  return li;
}

function setUpLiveFeed() {
  const list = document.getElementById("feed-list");
  const status = document.getElementById("feed-status");
  if (!list || !status || !window.EventSource) return;
  const source = new EventSource(list.dataset.stream);
  source.addEventListener("hello", () => { status.textContent = "Connected: new advisories appear here as they are published."; });
  source.addEventListener("advisory", (event) => {
    const data = JSON.parse(event.data);
    list.prepend(advisoryItem(data));
    const empty = document.getElementById("feed-empty");
    if (empty) empty.remove();
  });
  source.addEventListener("error", () => { status.textContent = "Disconnected; reconnecting…"; });
}

function setUpLogStream() {
  const log = document.getElementById("mission-log");
  if (!log || !window.EventSource) return;
  const source = new EventSource(log.dataset.stream);
  const add = (event) => {
    const line = document.createElement("li");
    line.textContent = event.type + ": " + event.data;
    log.append(line);
  };
  for (const kind of ["status", "log", "proposal", "done"]) source.addEventListener(kind, add);
  source.addEventListener("done", () => source.close());
}

document.addEventListener("DOMContentLoaded", () => {
  setUpCopyButtons();
  setUpLiveFeed();
  setUpLogStream();
});
