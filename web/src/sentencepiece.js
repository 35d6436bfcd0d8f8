// SentencePiece compiled to WebAssembly, bundled for the browser as the global
// `sentencepiece` (make web: esbuild). The page loads the model's tokenizer.model into it.
export { SentencePieceProcessor } from '@sctg/sentencepiece-js';
