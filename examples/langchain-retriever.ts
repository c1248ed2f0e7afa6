/**
 * cortexis inside LangChain.js: LangChain `Document`s (as a loader and text splitter leave
 * them, with nested `metadata.loc`) are ingested with `fromLangChainDocuments`, and a
 * `CortexisRetriever` feeds the whole chunk text to a prompt in a `RunnableSequence`.
 * The chain stops at the prompt so the example runs offline; put your chat model after it.
 * Run: node --import tsx examples/langchain-retriever.ts
 */
import { Document } from '@langchain/core/documents';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { RunnableLambda, RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { createChatEngine } from 'cortexis';
import { CortexisRetriever, fromLangChainDocuments } from 'cortexis/langchain';

const engine = createChatEngine(); // in memory, offline

// What `RecursiveCharacterTextSplitter.splitDocuments(await loader.load())` returns.
const docs = [
  new Document({
    pageContent:
      'The Harbor Street depot is the main maintenance site of the city bike fleet. ' +
      'Mechanics inspect brakes, tyres and lights on every bike back from a long rental. ' +
      'Spare parts are ordered every Monday and arrive by Wednesday at the latest. ' +
      'Batteries of electric bikes are charged overnight in the north hall. ' +
      'The depot loading dock closes at 17:30 on Fridays.',
    metadata: {
      source: 'manuals/depot.md',
      title: 'Depot manual',
      loc: { lines: { from: 1, to: 5 } },
    },
  }),
  new Document({
    pageContent: 'Rentals longer than four hours are billed as a full day.',
    metadata: { source: 'manuals/pricing.md', loc: { lines: { from: 1, to: 1 } } },
  }),
];
await engine.ingest(fromLangChainDocuments(docs)); // nested metadata becomes 'loc.lines.from'

const retriever = new CortexisRetriever({ engine, k: 2 });
const [best] = await retriever.invoke('When does the loading dock close on Fridays?');
console.log(best?.metadata.title, best?.metadata.uri, best?.metadata['loc.lines.from']);
console.log(`${best?.pageContent.length} characters of context (the whole chunk)`);

const prompt = ChatPromptTemplate.fromMessages([
  ['system', 'Answer from the context only; cite sources as [S1].\n\nContext:\n{context}'],
  ['human', '{question}'],
]);
const chain = RunnableSequence.from([
  {
    context: retriever.pipe(
      RunnableLambda.from((found: Document[]) =>
        found.map((doc) => `[${doc.metadata.sourceId}] ${doc.pageContent}`).join('\n\n'),
      ),
    ),
    question: new RunnablePassthrough(),
  },
  prompt,
  // …then your chat model and an output parser, e.g. `new ChatOpenAI(), new StringOutputParser()`.
]);
const value = await chain.invoke('When does the loading dock close on Fridays?');
for (const message of value.toChatMessages())
  console.log(`${message.getType()}: ${message.content}`);
