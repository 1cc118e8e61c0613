// shim.c is the interface of the treesitter-*.wasm modules: tree-sitter's
// runtime and one grammar behind a handful of exports, so the Go side makes one call
// per parse and reads the whole tree back as a flat array.
//
// A parse result is an array of uint32 words: a header of HEADER_WORDS
// (node count, whether the root has an error), then NODE_WORDS per node in
// preorder: symbol, field id, start byte, end byte, start row, start
// column (bytes), flags, index of the parent (0xffffffff for the root).
// The walk is tree-sitter's cursor walk; once max_nodes nodes are written
// it stops descending but still lists the remaining siblings of the nodes
// on the path, as the cgo walk it replaces did.

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tree_sitter/api.h"

const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);

// cancelled is provided by the host: non-zero ends the parse (tree-sitter
// calls the progress callback every few hundred operations).
__attribute__((import_module("skillpm"), import_name("cancelled")))
extern int32_t host_cancelled(void);

#define EXPORT(name) __attribute__((export_name(#name)))

enum { HEADER_WORDS = 2, NODE_WORDS = 8 };
enum { FLAG_NAMED = 1, FLAG_ERROR = 2, FLAG_MISSING = 4 };

// SK_LANG is the one grammar of this module (build.sh makes one module per
// grammar, so a process compiles only the grammars its files need); the
// numbering is the Go side's, the same in every module.
#ifndef SK_LANG
#error "build with -DSK_LANG=0 (python), 1 (javascript), 2 (typescript) or 3 (tsx)"
#endif

static const TSLanguage *language(uint32_t id) {
  if (id != SK_LANG) return NULL;
#if SK_LANG == 0
  return tree_sitter_python();
#elif SK_LANG == 1
  return tree_sitter_javascript();
#elif SK_LANG == 2
  return tree_sitter_typescript();
#elif SK_LANG == 3
  return tree_sitter_tsx();
#else
#error "unknown SK_LANG"
#endif
}

EXPORT(sk_malloc) void *sk_malloc(uint32_t n) { return malloc(n); }

EXPORT(sk_free) void sk_free(void *p) { free(p); }

EXPORT(sk_symbol_count) uint32_t sk_symbol_count(uint32_t lang) {
  const TSLanguage *l = language(lang);
  return l ? ts_language_symbol_count(l) : 0;
}

EXPORT(sk_symbol_name) const char *sk_symbol_name(uint32_t lang, uint32_t sym) {
  const TSLanguage *l = language(lang);
  return l ? ts_language_symbol_name(l, (TSSymbol)sym) : NULL;
}

EXPORT(sk_field_count) uint32_t sk_field_count(uint32_t lang) {
  const TSLanguage *l = language(lang);
  return l ? ts_language_field_count(l) : 0;
}

EXPORT(sk_field_name) const char *sk_field_name(uint32_t lang, uint32_t field) {
  const TSLanguage *l = language(lang);
  return l ? ts_language_field_name_for_id(l, (TSFieldId)field) : NULL;
}

typedef struct {
  const char *src;
  uint32_t len;
} source;

static const char *read_source(void *payload, uint32_t off, TSPoint p, uint32_t *n) {
  (void)p;
  source *s = payload;
  if (off >= s->len) {
    *n = 0;
    return "";
  }
  *n = s->len - off;
  return s->src + off;
}

static bool progress(TSParseState *state) {
  (void)state;
  return host_cancelled() != 0;
}

typedef struct {
  uint32_t *w;
  size_t len, cap;
} buffer;

static bool push(buffer *b, const uint32_t *words, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 1 << 14;
    while (cap < b->len + n) cap *= 2;
    uint32_t *w = realloc(b->w, cap * sizeof *w);
    if (!w) return false;
    b->w = w;
    b->cap = cap;
  }
  memcpy(b->w + b->len, words, n * sizeof *words);
  b->len += n;
  return true;
}

static TSParser *parser;

// sk_parse parses len bytes at src as language lang and returns the result
// array (free it with sk_free), or NULL when the parse was cancelled or
// memory ran out.
EXPORT(sk_parse) uint32_t *sk_parse(uint32_t lang, const char *src, uint32_t len, uint32_t max_nodes) {
  const TSLanguage *l = language(lang);
  if (!l) return NULL;
  if (!parser) parser = ts_parser_new();
  if (!ts_parser_set_language(parser, l)) return NULL;
  source s = {src, len};
  TSInput input = {.payload = &s, .read = read_source, .encoding = TSInputEncodingUTF8};
  TSParseOptions opts = {.payload = NULL, .progress_callback = progress};
  TSTree *tree = ts_parser_parse_with_options(parser, NULL, input, opts);
  ts_parser_reset(parser);
  if (!tree) return NULL;

  buffer b = {0};
  uint32_t header[HEADER_WORDS] = {0, 0};
  bool ok = push(&b, header, HEADER_WORDS);
  TSNode root = ts_tree_root_node(tree);
  TSTreeCursor cur = ts_tree_cursor_new(root);
  // parents holds the index of each node on the cursor's path.
  uint32_t *parents = NULL;
  size_t depth = 0, pcap = 0;
  uint32_t count = 0;
  while (ok) {
    TSNode n = ts_tree_cursor_current_node(&cur);
    TSPoint sp = ts_node_start_point(n);
    uint32_t flags = 0;
    if (ts_node_is_named(n)) flags |= FLAG_NAMED;
    if (ts_node_is_error(n)) flags |= FLAG_ERROR;
    if (ts_node_is_missing(n)) flags |= FLAG_MISSING;
    uint32_t w[NODE_WORDS] = {
        ts_node_symbol(n), ts_tree_cursor_current_field_id(&cur),
        ts_node_start_byte(n), ts_node_end_byte(n),
        sp.row, sp.column, flags,
        depth ? parents[depth - 1] : 0xffffffffu,
    };
    if (!push(&b, w, NODE_WORDS)) {
      ok = false;
      break;
    }
    uint32_t self = count++;
    if (count < max_nodes && ts_tree_cursor_goto_first_child(&cur)) {
      if (depth == pcap) {
        size_t c = pcap ? pcap * 2 : 256;
        uint32_t *p = realloc(parents, c * sizeof *p);
        if (!p) {
          ok = false;
          break;
        }
        parents = p;
        pcap = c;
      }
      parents[depth++] = self;
      continue;
    }
    bool done = false;
    while (!ts_tree_cursor_goto_next_sibling(&cur)) {
      if (!ts_tree_cursor_goto_parent(&cur)) {
        done = true;
        break;
      }
      depth--;
    }
    if (done) break;
  }
  free(parents);
  ts_tree_cursor_delete(&cur);
  if (ok) {
    b.w[0] = count;
    b.w[1] = ts_node_has_error(root) ? 1 : 0;
  }
  ts_tree_delete(tree);
  if (!ok) {
    free(b.w);
    return NULL;
  }
  return b.w;
}
