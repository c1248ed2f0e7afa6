import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  createChatEngine,
  createMemoryKeywordIndex,
  createTextAnalyzer,
  detectLanguage,
  ValidationError,
} from '../../src/index.js';
import { createSqliteStores } from '../../src/adapters/sqlite/index.js';
import { analyzeTerms, splitContent } from '../../src/text/analyzer.js';
import { foldAccents, surfaceWords } from '../../src/text/segment.js';
import { splitSentences } from '../../src/text/sentences.js';
import { stemmedTerms } from '../../src/text/stem.js';
import { contentWords, words } from '../../src/text/words.js';

interface Fixture {
  readonly language: string;
  readonly documents: { id: string; title: string; text: string }[];
  readonly questions: { question: string; expected: string }[];
}

const load = (name: string): Fixture =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/languages/${name}.json`, import.meta.url), 'utf8'),
  ) as Fixture;

const fixtures = ['ja', 'zh', 'de', 'fr', 'distractors'].map(load);
const documents = fixtures.flatMap((fixture) => fixture.documents);

describe('segmentation', () => {
  it('cuts Japanese, Chinese and Thai into words with Intl.Segmenter', () => {
    expect(words('保証期間は購入日から2年間です。')).toEqual([
      '保証',
      '期間',
      'は',
      '購入',
      '日',
      'から',
      '2',
      '年間',
      'です',
    ]);
    expect(words('收到商品后三十天内可以退货')).toContain('商品');
    expect(words('收到商品后三十天内可以退货').length).toBeGreaterThan(5);
    expect(words('ยินดีต้อนรับสู่ประเทศไทย')).toEqual(['ยินดี', 'ต้อนรับ', 'สู่', 'ประเทศไทย']);
  });

  it('segments a long run without punctuation in windows, with the words of the whole run', () => {
    const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
    for (const sentence of ['保証期間は購入日から二年間です', 'ยินดีต้อนรับสู่ประเทศไทยวันนี้อากาศดีมาก']) {
      const run = sentence.repeat(150);
      const whole = [...segmenter.segment(run)]
        .filter((part) => part.isWordLike)
        .map((part) => part.segment);
      expect(surfaceWords(run)).toEqual(whole);
    }
  });

  it('keeps Latin words in mixed text and splits Korean at spaces', () => {
    expect(words('iPhone 15の保証')).toEqual(['iphone', '15', 'の', '保証']);
    expect(words('보증 기간은 2년입니다')).toEqual(['보증', '기간은', '2년입니다']);
  });

  it('normalises to NFKC: full-width forms, ligatures, composed accents', () => {
    expect(words('ＡＢＣ１２３ ﬁle')).toEqual(['abc123', 'file']);
    // "e" + combining acute is one word, folded like the composed "é".
    expect(words('cafe\u0301 café')).toEqual(['cafe', 'cafe']);
    expect(surfaceWords('ﾊﾞｯﾃﾘｰ')).toEqual(['バッテリー']);
  });

  it('ends Chinese and Japanese sentences at 。！？ without spaces', () => {
    const text = '保証期間は2年です。フレームは10年です！本当？';
    const spans = splitSentences(text);
    expect(spans.map((span) => span.text)).toEqual([
      '保証期間は2年です。',
      'フレームは10年です！',
      '本当？',
    ]);
    for (const span of spans) expect(text.slice(span.start, span.end)).toBe(span.text);
  });
});

describe('accent folding', () => {
  it('folds Latin diacritics and ß, æ, œ, ø; leaves other scripts alone', () => {
    expect(words('Crème Brûlée, Straße, Ærø, cœur, Ñandú')).toEqual([
      'creme',
      'brulee',
      'strasse',
      'aero',
      'coeur',
      'nandu',
    ]);
    expect(foldAccents('が')).toBe('が');
    expect(foldAccents('йод')).toBe('йод');
    expect(foldAccents('naïve')).toBe('naive');
  });

  it('makes accented and unaccented spellings meet in the index', () => {
    expect(stemmedTerms('Café crème')).toEqual(stemmedTerms('cafe creme'));
    expect(analyzeTerms('Straße', 'de')).toEqual(analyzeTerms('Strasse', 'de'));
  });
});

describe('stop words and stemming per language', () => {
  it('stems German and French with Snowball and drops their stop words', () => {
    expect(analyzeTerms('Die Garantie gilt für alle Fahrräder', 'de')).toEqual([
      'garanti',
      'gilt',
      'fahrrad',
    ]);
    expect(analyzeTerms('Fahrrad', 'de')).toEqual(analyzeTerms('Fahrräder', 'de'));
    expect(analyzeTerms('Quand serai-je remboursé ?')).toEqual(['rembours']);
    expect(analyzeTerms('Le remboursement est effectué')).toEqual(['rembours', 'effectu']);
    // "cuánto" is a Spanish stop word.
    expect(analyzeTerms('¿Cuánto dura la garantía de las bicicletas?')).toEqual([
      'dur',
      'garant',
      'biciclet',
    ]);
  });

  it('drops Japanese and Chinese particles and question words, without stemming', () => {
    expect(analyzeTerms('保証期間はどのくらいですか？')).toEqual(['保証', '期間']);
    expect(analyzeTerms('退款需要多久？')).toEqual(['退款']);
    expect(splitContent('バッテリーの充電時間は？').content).toEqual([
      'バッテリー',
      '充電',
      '時間',
    ]);
  });

  it('keeps the English stemmer and stop list: ASCII English gives exactly the earlier terms', () => {
    // Pinned output of the analyser before languages were added (SQLite/Postgres keyword
    // indexes store these terms and have no analyser version).
    const text =
      'Refunds are issued within 14 days; the refunded amounts include shipping. Mutations, ' +
      'mutated and mutating cells were studied by Dr. Smith in 2019 (IL-6, p < 0.05).';
    expect(stemmedTerms(text)).toEqual([
      'refund',
      'issu',
      'within',
      '14',
      'day',
      'refund',
      'amount',
      'includ',
      'ship',
      'mutation',
      'mutat',
      'mutat',
      'cell',
      'studi',
      'dr',
      'smith',
      '2019',
      'il',
      '6',
      'p',
      '0',
      '05',
    ]);
    expect(words(text)).toEqual(text.toLowerCase().match(/[\p{L}\p{N}]+/gu));
    expect(contentWords(text)).toEqual([
      'refunds',
      'issued',
      'within',
      '14',
      'days',
      'refunded',
      'amounts',
      'include',
      'shipping',
      'mutations',
      'mutated',
      'mutating',
      'cells',
      'studied',
      'dr',
      'smith',
      '2019',
      'il',
      '6',
      'p',
      '0',
      '05',
    ]);
    // A few foreign function words do not make English text foreign.
    expect(stemmedTerms('Die hard fans was in La La Land')).toEqual([
      'die',
      'hard',
      'fan',
      'la',
      'la',
      'land',
    ]);
  });
});

describe('detectLanguage', () => {
  it('detects the script languages and Latin-script languages by function words', () => {
    expect(detectLanguage('保証期間はどのくらいですか？')).toBe('ja');
    expect(detectLanguage('保修期是多长时间？')).toBe('zh');
    expect(detectLanguage('보증 기간은 얼마나 됩니까?')).toBe('ko');
    expect(detectLanguage('สวัสดีครับ')).toBe('th');
    expect(detectLanguage('Wie lange gilt die Garantie?')).toBe('de');
    expect(detectLanguage('Garantie für Fahrräder')).toBe('de');
    expect(detectLanguage('Quelle est la durée de la garantie ?')).toBe('fr');
    expect(detectLanguage('¿Dónde está la estación?')).toBe('es');
    expect(detectLanguage('Dov è la stazione?')).toBe('it');
    expect(detectLanguage('Onde fica a estação?')).toBe('pt');
    expect(detectLanguage('Waar is het station?')).toBe('nl');
  });

  it('says English for English and for text without evidence', () => {
    expect(detectLanguage('What is the refund policy?')).toBe('en');
    expect(detectLanguage('de novo synthesis pathway')).toBe('en');
    expect(detectLanguage('refund policy')).toBe('en');
    expect(detectLanguage('')).toBe('en');
    expect(detectLanguage('The Café de Flore is in Paris, and the menu is in French.')).toBe('en');
  });
});

describe('createTextAnalyzer and the text.language setting', () => {
  it('analyses every text in a configured language', () => {
    const german = createTextAnalyzer({ language: 'de' });
    expect(german.language).toBe('de');
    // Without function words, auto detection cannot tell; the configured language can.
    expect(german.terms('Rahmen Garantiezeiten')).toEqual(['rahm', 'garantiezeit']);
    expect(createTextAnalyzer().terms('Rahmen Garantiezeiten')).toEqual([
      'rahmen',
      'garantiezeiten',
    ]);
  });

  it('rejects an unknown language with typed errors', () => {
    expect(() => createTextAnalyzer({ language: 'xx' as 'de' })).toThrow(ValidationError);
    expect(() => createChatEngine({ text: { language: 'klingon' as 'de' } })).toThrow(ConfigError);
    expect(() => createMemoryKeywordIndex({ language: 'xx' as 'de' })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ path: 'settings.language' })] }),
    );
  });

  it('passes the configured language to the default keyword index', async () => {
    const index = createMemoryKeywordIndex({ language: 'de' });
    await index.add('n', [
      { id: 'rahmen', text: 'Auf die Rahmen gewähren wir zehn Jahre Garantie.', metadata: {} },
      { id: 'akku', text: 'Der Akku ist nach vier Stunden geladen.', metadata: {} },
    ]);
    const [best] = await index.search('n', 'Rahmengarantie Rahmens', { k: 2 });
    expect(best?.id).toBe('rahmen');
    const engine = createChatEngine({ text: { language: 'de' } });
    await engine.ingest([
      { id: 'rahmen', text: 'Auf die Rahmen gewähren wir zehn Jahre Garantie.' },
    ]);
    const hits = await engine.search('Rahmens');
    expect(hits[0]?.documentId).toBe('rahmen');
  });
});

describe('multilingual retrieval with offline defaults', () => {
  const engine = createChatEngine();
  const ready = engine.ingest(documents);

  for (const fixture of fixtures) {
    describe(fixture.language, () => {
      it.each(fixture.questions)('search: $question → $expected first', async (question) => {
        await ready;
        const hits = await engine.search(question.question, { k: 3 });
        expect(hits[0]?.documentId).toBe(question.expected);
      });

      it.each(fixture.questions)('chat: $question is answered from $expected', async (question) => {
        await ready;
        const reply = await engine.chat({ message: question.question, mode: 'query' });
        expect(reply.guard).toBe(false);
        expect(reply.sources[0]?.documentId).toBe(question.expected);
      });
    });
  }

  it('finds Japanese, Chinese, German and French documents in the SQLite FTS5 index too', async () => {
    const stores = await createSqliteStores({ path: ':memory:' });
    try {
      const sqlite = createChatEngine({ keywordIndex: stores.keywordIndex });
      await sqlite.ingest(documents);
      for (const fixture of fixtures) {
        for (const question of fixture.questions) {
          const [best] = await stores.keywordIndex.search('default', question.question, { k: 1 });
          expect(best?.metadata?.['documentId'] ?? best?.id, question.question).toSatisfy(
            (id: unknown) => String(id).startsWith(question.expected),
          );
        }
      }
    } finally {
      stores.close();
    }
  });

  it('answers a Japanese question in a session with the source sentence', async () => {
    await ready;
    const session = await engine.createSession({ userId: 'u1' });
    const reply = await engine.chat({
      sessionId: session.id,
      message: '保証期間はどのくらいですか？',
    });
    expect(reply.guard).toBe(false);
    expect(reply.sources[0]?.documentId).toBe('ja-warranty');
    expect(reply.text).toContain('2年間');
  });
});
