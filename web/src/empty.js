// Node's fs and module, which the SentencePiece package imports for reading files from disk: the browser
// build never calls them (it loads the model from bytes).
export default {};
