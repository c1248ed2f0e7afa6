import { testVectorStore } from 'cortexis/testing';
import { createArrayVectorStore } from '../../examples/custom-vector-store.js';

testVectorStore({ create: () => createArrayVectorStore(), title: 'examples/custom-vector-store' });
