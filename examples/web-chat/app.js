// The web chat demo page: conversations, streamed answers (Server-Sent Events read with a
// fetch reader), sources, clickable citations, confidence and feedback. Plain ES module, no
// build step, no dependencies. Everything the server sends is rendered as text, never HTML.

const API = '/api';
/** DEMO ONLY: the demo server trusts this header as the user id. Real apps use a session. */
const DEMO_USER = 'demo';

/** A citation tag in an answer: `[source: S1]` or `[source: S1, S2]`. */
const TAG = /^\[\s*source\s*:\s*([A-Za-z0-9_-]+(?:\s*,\s*[A-Za-z0-9_-]+)*)\s*\]/i;
/** Text that may still become a citation tag when more of the stream arrives. */
const TAG_PREFIX =
  /^\[(?:\s*(?:s(?:o(?:u(?:r(?:c(?:e(?:\s*(?::[\sA-Za-z0-9_,-]*)?)?)?)?)?)?)?)?)?$/i;

const $ = (selector) => {
  const found = document.querySelector(selector);
  if (!found) throw new Error(`missing ${selector}`);
  return found;
};

const ui = {
  list: $('#conversation-list'),
  empty: $('#conversation-empty'),
  newConversation: $('#new-conversation'),
  title: $('#chat-title'),
  intro: $('#intro'),
  messages: $('#messages'),
  error: $('#chat-error'),
  form: $('#composer'),
  question: $('#question'),
  send: $('#send'),
};

const state = {
  /** @type {string | null} */ conversationId: null,
  /** @type {Array<Record<string, any>>} */ conversations: [],
  streaming: false,
  answers: 0,
};

// ---------------------------------------------------------------------------------------------
// HTTP

function headers(extra = {}) {
  return { 'x-demo-user': DEMO_USER, accept: 'application/json', ...extra };
}

/** An Error with the server's message (the API answers `{ code, message }` on failure). */
async function responseError(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && typeof body.message === 'string') message = body.message;
  } catch {
    // not JSON: keep the status line
  }
  const retryAfter = response.headers.get('retry-after');
  if (response.status === 429 && retryAfter) message += ` Try again in ${retryAfter} s.`;
  return new Error(message);
}

async function api(path, init = {}) {
  const response = await fetch(`${API}${path}`, {
    ...init,
    headers: headers(init.body ? { 'content-type': 'application/json' } : {}),
  });
  if (!response.ok) throw await responseError(response);
  return response.status === 204 ? null : response.json();
}

/** Parses one SSE frame (`event:` / `data:` lines); null for comments or bad JSON. */
function parseFrame(frame) {
  let event = 'message';
  const data = [];
  for (const line of frame.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  try {
    return { event, data: JSON.parse(data.join('\n')) };
  } catch {
    return null;
  }
}

/** The Server-Sent Events of a fetch response body, as they arrive. */
async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    buffer = buffer.replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const parsed = parseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (parsed) yield parsed;
    }
  }
  const last = parseFrame(buffer);
  if (last) yield last;
}

// ---------------------------------------------------------------------------------------------
// Small DOM helpers

function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';
/** A thumb icon (drawn here: no icon font, no CDN). */
function thumbIcon() {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const d of [
    'M2 10h4v11H2z',
    'M8 10l4-7c1.6 0 2.6 1.3 2.1 2.9L13.2 9h6.3c1.4 0 2.4 1.3 2 2.6l-1.9 7c-.3 1.1-1.2 1.9-2.4 1.9H8z',
  ]) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ''
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

function conversationLabel(session) {
  return session.title || `Conversation · ${formatTime(session.createdAt)}`;
}

function showError(message) {
  ui.error.textContent = message;
  ui.error.hidden = !message;
}

/** Scrolls the latest question to the top, so its answer streams in below it. */
function revealLatestQuestion() {
  const questions = ui.messages.querySelectorAll('.message.user');
  questions[questions.length - 1]?.scrollIntoView({ block: 'start', behavior: 'smooth' });
}

// ---------------------------------------------------------------------------------------------
// Conversations

function renderConversationList() {
  ui.list.replaceChildren(
    ...state.conversations.map((session) => {
      const count = session.stats?.messageCount ?? 0;
      const meta = [`${count} message${count === 1 ? '' : 's'}`];
      if (session.status !== 'active') meta.push(session.status);
      const button = h(
        'button',
        {
          type: 'button',
          class: 'conversation',
          'aria-current': session.id === state.conversationId ? 'true' : null,
        },
        h('span', { class: 'conversation-title' }, conversationLabel(session)),
        h('span', { class: 'conversation-meta' }, meta.join(' · ')),
      );
      button.addEventListener('click', () => void openConversation(session.id));
      return h('li', {}, button);
    }),
  );
  ui.empty.hidden = state.conversations.length > 0;
}

async function loadConversations() {
  const page = await api('/conversations?limit=50');
  state.conversations = page.sessions;
  renderConversationList();
}

function setCurrent(session) {
  state.conversationId = session ? session.id : null;
  ui.title.textContent = session ? conversationLabel(session) : 'Start a conversation';
  const open = !session || session.status === 'active';
  ui.question.disabled = !open;
  ui.send.disabled = !open || state.streaming;
  ui.question.placeholder = open
    ? 'Ask about the docs… (Enter sends, Shift+Enter for a new line)'
    : `This conversation is ${session.status}. Start a new one to ask more.`;
  renderConversationList();
}

async function createConversation() {
  const { session } = await api('/conversations', { method: 'POST', body: '{}' });
  state.conversations = [session, ...state.conversations.filter((s) => s.id !== session.id)];
  ui.messages.replaceChildren();
  ui.intro.hidden = false;
  setCurrent(session);
  return session;
}

async function openConversation(id) {
  if (state.streaming) return;
  showError('');
  try {
    const page = await api(
      `/conversations/${encodeURIComponent(id)}?limit=100&includeFeedback=true`,
    );
    const ratings = new Map((page.feedback ?? []).map((entry) => [entry.messageId, entry.rating]));
    ui.messages.replaceChildren();
    for (const message of page.messages) {
      if (message.role === 'user') renderUserMessage(message.content);
      else if (message.role === 'assistant') renderStoredAnswer(message, ratings.get(message.id));
    }
    ui.intro.hidden = page.messages.length > 0;
    setCurrent(page.session);
    revealLatestQuestion();
  } catch (error) {
    showError(`Could not open the conversation: ${error.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

function renderUserMessage(text) {
  ui.messages.append(
    h(
      'li',
      { class: 'message user' },
      h('p', { class: 'speaker visually-hidden' }, 'You asked:'),
      h('p', { class: 'bubble' }, text),
    ),
  );
}

/** One assistant answer: streamed text with citation buttons, sources, confidence, feedback. */
class AnswerView {
  constructor() {
    this.prefix = `answer-${++state.answers}`;
    this.raw = '';
    this.pending = '';
    this.deltas = 0;
    /** @type {Map<string, {element: HTMLElement, source: Record<string, any>}>} */
    this.sources = new Map();
    this.messageId = null;

    this.answer = h('div', { class: 'answer', id: `${this.prefix}-text` });
    this.status = h('p', { class: 'answer-status muted', role: 'status' });
    this.badge = h('div', { class: 'confidence-slot' });
    this.feedback = h('div', { class: 'feedback', role: 'group', 'aria-label': 'Feedback' });
    this.sourceList = h('ol', { class: 'source-list' });
    this.sourceSection = h(
      'section',
      { class: 'sources', 'aria-labelledby': `${this.prefix}-sources`, hidden: true },
      h('h3', { id: `${this.prefix}-sources` }, 'Sources'),
      this.sourceList,
    );
    this.element = h(
      'li',
      { class: 'message assistant', 'data-state': 'streaming' },
      h(
        'article',
        { class: 'bubble', 'aria-labelledby': `${this.prefix}-label` },
        h('p', { class: 'speaker visually-hidden', id: `${this.prefix}-label` }, 'Answer'),
        this.answer,
        this.status,
        h('div', { class: 'answer-meta' }, this.badge, this.feedback),
        this.sourceSection,
      ),
    );
    ui.messages.append(this.element);
  }

  /** Marks the answer as a live region while it streams. */
  startStreaming() {
    this.answer.setAttribute('aria-live', 'polite');
    this.answer.setAttribute('aria-busy', 'true');
    this.answer.classList.add('typing');
  }

  stopStreaming(stateName) {
    this.drain(true);
    this.answer.setAttribute('aria-busy', 'false');
    this.answer.classList.remove('typing');
    this.element.dataset.state = stateName;
  }

  appendText(delta) {
    this.raw += delta;
    this.pending += delta;
    this.deltas += 1;
    this.answer.dataset.deltas = String(this.deltas);
    this.drain(false);
  }

  /** Replaces the text (the final answer may differ from the stream after grounding). */
  setText(text) {
    if (text === this.raw) return;
    this.answer.replaceChildren();
    this.raw = text;
    this.pending = text;
    this.drain(true);
  }

  /** Renders pending text; holds back a possible unfinished citation tag unless `final`. */
  drain(final) {
    let text = this.pending;
    while (text.length > 0) {
      const open = text.indexOf('[');
      if (open === -1) {
        this.emitText(text);
        text = '';
        break;
      }
      if (open > 0) {
        this.emitText(text.slice(0, open));
        text = text.slice(open);
      }
      const tag = TAG.exec(text);
      if (tag) {
        this.emitCitations(tag[1].split(',').map((id) => id.trim()));
        text = text.slice(tag[0].length);
        continue;
      }
      if (!final && text.length < 200 && TAG_PREFIX.test(text)) break;
      this.emitText('[');
      text = text.slice(1);
    }
    this.pending = text;
  }

  emitText(text) {
    const last = this.answer.lastChild;
    if (last && last.nodeType === Node.TEXT_NODE) last.appendData(text);
    else this.answer.append(document.createTextNode(text));
  }

  emitCitations(ids) {
    const group = h('span', { class: 'citations' });
    for (const id of ids) {
      const known = this.sources.get(id);
      const button = h(
        'button',
        {
          type: 'button',
          class: 'citation',
          'aria-controls': `${this.prefix}-${id}`,
          'aria-label': `Show source ${id}${known?.source.title ? `: ${known.source.title}` : ''}`,
          'data-source': id,
        },
        id,
      );
      button.addEventListener('click', () => this.showSource(id));
      group.append(button);
    }
    this.answer.append(group);
  }

  /** Scrolls to a cited source and highlights it. */
  showSource(id) {
    const entry = this.sources.get(id);
    if (!entry) return;
    for (const other of document.querySelectorAll('.source.highlighted')) {
      other.classList.remove('highlighted');
    }
    // Restart the flash animation when the same source is clicked twice.
    void entry.element.offsetWidth;
    entry.element.classList.add('highlighted');
    entry.element.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    entry.element.focus({ preventScroll: true });
  }

  setSources(sources) {
    this.sources.clear();
    this.sourceList.replaceChildren(
      ...sources.map((source) => {
        const element = h(
          'li',
          { class: 'source', id: `${this.prefix}-${source.id}`, tabindex: '-1' },
          h('span', { class: 'source-label' }, source.id),
          h(
            'div',
            { class: 'source-body' },
            h(
              'p',
              { class: 'source-title' },
              source.title || source.documentId,
              source.uri ? h('span', { class: 'source-uri' }, ` — ${source.uri}`) : null,
            ),
            h('p', { class: 'source-snippet' }, source.snippet),
          ),
          h(
            'span',
            { class: 'source-score', title: 'Relevance to the question' },
            Number(source.score).toFixed(2),
          ),
        );
        this.sources.set(source.id, { element, source });
        return element;
      }),
    );
    this.sourceSection.hidden = sources.length === 0;
  }

  markCited(report, { announce = true } = {}) {
    for (const id of report.validIds ?? []) {
      this.sources.get(id)?.element.classList.add('cited');
    }
    const removed = report.removed ?? [];
    if (announce && removed.length > 0) {
      this.note(`Removed ${removed.length} citation(s) of unknown sources: ${removed.join(', ')}.`);
    }
  }

  setConfidence(confidence) {
    if (!confidence) return;
    const level = ['low', 'medium', 'high'].includes(confidence.level) ? confidence.level : 'low';
    const score = Number(confidence.overall).toFixed(2);
    const factors = [
      ['Source quality', confidence.sourceQuality],
      ['Source diversity', confidence.sourceDiversity],
      ['Semantic cohesion', confidence.semanticCohesion],
      ['Graph context', confidence.graphContext],
      ['Model certainty', confidence.llmCertainty],
    ].filter(([, value]) => typeof value === 'number');
    const details = h(
      'details',
      { class: 'confidence-details' },
      h('summary', {}, 'Why?'),
      h(
        'dl',
        {},
        ...factors.flatMap(([name, value]) => [h('dt', {}, name), h('dd', {}, value.toFixed(2))]),
      ),
    );
    this.badge.replaceChildren(
      h(
        'span',
        { class: `badge confidence-${level}`, 'data-level': level, 'data-score': score },
        h('span', { class: 'badge-dot', 'aria-hidden': 'true' }),
        `${level[0].toUpperCase()}${level.slice(1)} confidence`,
        h('span', { class: 'badge-score' }, score),
      ),
      details,
    );
  }

  note(text) {
    this.status.textContent = this.status.textContent ? `${this.status.textContent} ${text}` : text;
  }

  showError(message) {
    this.element.classList.add('failed');
    this.status.classList.remove('muted');
    this.status.classList.add('error');
    this.note(message);
  }

  /** Enables the feedback buttons for a stored answer; `rating` shows an earlier one. */
  enableFeedback(messageId, rating) {
    this.messageId = messageId;
    const status = h('span', { class: 'feedback-status', role: 'status' });
    const buttons = [
      ['good', 'Thumbs up: helpful answer', 'up'],
      ['bad', 'Thumbs down: unhelpful answer', 'down'],
    ].map(([rating, label, direction]) => {
      const button = h(
        'button',
        {
          type: 'button',
          class: `feedback-button thumb-${direction}`,
          'aria-label': label,
          title: label,
          'aria-pressed': 'false',
        },
        thumbIcon(),
      );
      button.addEventListener('click', () => void this.sendFeedback(rating, button, status));
      return button;
    });
    this.feedback.replaceChildren(
      h('span', { class: 'feedback-prompt muted' }, 'Helpful?'),
      ...buttons,
      status,
    );
    this.feedbackButtons = buttons;
    if (rating === 'good' || rating === 'bad') {
      for (const button of buttons) {
        const pressed = button.classList.contains(rating === 'good' ? 'thumb-up' : 'thumb-down');
        button.setAttribute('aria-pressed', String(pressed));
      }
      status.textContent = 'You rated this answer.';
      status.classList.add('recorded');
      this.element.dataset.feedback = rating;
    }
  }

  async sendFeedback(rating, button, status) {
    for (const other of this.feedbackButtons) other.disabled = true;
    status.textContent = 'Sending…';
    try {
      await api(`/messages/${encodeURIComponent(this.messageId)}/feedback`, {
        method: 'POST',
        body: JSON.stringify({ rating }),
      });
      for (const other of this.feedbackButtons) {
        other.setAttribute('aria-pressed', String(other === button));
      }
      status.textContent = 'Thanks — feedback recorded.';
      status.classList.add('recorded');
      this.element.dataset.feedback = rating;
    } catch (error) {
      for (const other of this.feedbackButtons) other.disabled = false;
      status.textContent = `Feedback not recorded: ${error.message}`;
    }
  }
}

/** An answer from the history: rendered at once, with the user's earlier rating if any. */
function renderStoredAnswer(message, rating) {
  const view = new AnswerView();
  view.setSources(message.sources ?? []);
  view.setText(message.content);
  const cited = [...view.answer.querySelectorAll('.citation')].map(
    (button) => button.dataset.source,
  );
  view.markCited({ validIds: cited }, { announce: false });
  view.setConfidence(message.confidence);
  if (message.status === 'incomplete') view.note('This answer was interrupted.');
  if (message.guard) view.note('No sufficiently relevant source was found.');
  view.stopStreaming('done');
  view.enableFeedback(message.id, rating);
}

function handlePart(view, event, data) {
  switch (event) {
    case 'sources':
      view.setSources(data.sources ?? []);
      break;
    case 'text-delta':
      view.appendText(data.text ?? '');
      break;
    case 'grounding':
      if (data.blocked) view.note('The answer was replaced: its claims were not supported.');
      break;
    case 'citations':
      view.markCited(data);
      break;
    case 'confidence':
      view.setConfidence(data.confidence);
      break;
    case 'done': {
      const { response } = data;
      if (view.sources.size === 0) view.setSources(response.sources ?? []);
      view.setText(response.text);
      view.markCited(response.citations ?? {}, { announce: false });
      view.setConfidence(response.confidence);
      if (response.guard) view.note('No sufficiently relevant source was found.');
      if (response.ended) view.note('The conversation has ended.');
      view.stopStreaming('done');
      view.enableFeedback(response.messageId);
      break;
    }
    case 'error':
      view.stopStreaming('error');
      view.showError(data.error?.message ?? 'The answer failed.');
      if (data.partialMessageId) view.enableFeedback(data.partialMessageId);
      break;
    default:
      break; // `route` and future parts are not shown
  }
}

async function ask(question) {
  if (state.streaming) return;
  showError('');
  state.streaming = true;
  ui.send.disabled = true;
  ui.form.setAttribute('aria-busy', 'true');
  let view = null;
  try {
    if (!state.conversationId) await createConversation();
    ui.intro.hidden = true;
    renderUserMessage(question);
    view = new AnswerView();
    view.startStreaming();
    revealLatestQuestion();
    const id = encodeURIComponent(/** @type {string} */ (state.conversationId));
    const response = await fetch(`${API}/conversations/${id}/messages`, {
      method: 'POST',
      headers: headers({ accept: 'text/event-stream', 'content-type': 'application/json' }),
      body: JSON.stringify({ content: question }),
    });
    if (!response.ok || !response.body) throw await responseError(response);
    for await (const { event, data } of readEvents(response.body)) {
      handlePart(view, event, data);
    }
    if (view.element.dataset.state === 'streaming') {
      view.stopStreaming('error');
      view.showError('The connection closed before the answer was complete.');
    }
  } catch (error) {
    if (view) {
      view.stopStreaming('error');
      view.showError(error.message);
    } else {
      showError(error.message);
    }
  } finally {
    state.streaming = false;
    ui.form.removeAttribute('aria-busy');
    ui.send.disabled = ui.question.disabled;
    await loadConversations().catch(() => undefined);
    const current = state.conversations.find((s) => s.id === state.conversationId);
    if (current) setCurrent(current);
  }
}

// ---------------------------------------------------------------------------------------------
// Wiring

ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  const question = ui.question.value.trim();
  if (!question || state.streaming) return;
  ui.question.value = '';
  void ask(question);
});

ui.question.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ui.form.requestSubmit();
  }
});

ui.newConversation.addEventListener('click', () => {
  if (state.streaming) return;
  showError('');
  createConversation()
    .then(() => ui.question.focus())
    .catch((error) => showError(`Could not create a conversation: ${error.message}`));
});

for (const suggestion of document.querySelectorAll('.suggestion')) {
  suggestion.addEventListener('click', () => {
    ui.question.value = (suggestion.textContent ?? '').trim();
    ui.form.requestSubmit();
  });
}

loadConversations().catch((error) =>
  showError(`Could not load conversations: ${error.message}. Is the demo server running?`),
);
