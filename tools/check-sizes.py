#!/usr/bin/env python3
"""Lists the C and CUDA sources of src/ and src/core over the size limits of
the package's style: files of 600 lines or more, functions over 100 lines.
Usage: python3 tools/check-sizes.py [--max-file N] [--max-function N]
(from the package root). Exits 1 when something is over a limit.

A function is a brace block opened at file scope (or inside an extern "C"
block) after a line that is not a struct, union, enum, array or namespace;
its length counts from the line of its name to its closing brace. Comments,
strings and character literals are skipped when braces are counted."""
import argparse
import glob
import re
import sys

NOT_FUNCTION = re.compile(r'\b(struct|union|enum|namespace|typedef)\b|=\s*$|\bextern\s+"\s*"')


def strip_code(text):
    """text with comments, strings and character literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(path):
    """(name, first line, length in lines) of each function of path."""
    code = strip_code(open(path, encoding='utf-8').read())
    lines = code.split('\n')
    found, depth, start, name, scopes = [], 0, None, None, []
    for ln, line in enumerate(lines, 1):
        for pos, ch in enumerate(line):
            if ch == '{':
                if start is None and depth == len(scopes):
                    head = ' '.join(l.strip() for l in lines[max(0, ln - 6):ln - 1]) + ' ' + line[:pos]
                    head = re.split(r'[;{}]', head)[-1]
                    m = re.search(r'([A-Za-z_]\w*)\s*(<[^<>]*>)?\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*[\w\s]*$', head)
                    if re.search(r'\bextern\s+"\s*"\s*$|\bnamespace\b', head):
                        scopes.append(depth)
                    elif m and not NOT_FUNCTION.search(head.strip()) and m.group(1) not in (
                            'if', 'for', 'while', 'switch', 'return', 'sizeof'):
                        start, name = ln, m.group(1)
                        # the line of the name, for a signature split over lines
                        for back in range(ln, max(0, ln - 6), -1):
                            if re.search(r'\b' + re.escape(name) + r'\s*(<[^<>]*>)?\s*\(', lines[back - 1]):
                                start = back
                                break
                depth += 1
            elif ch == '}':
                depth -= 1
                if scopes and depth == scopes[-1]:
                    scopes.pop()
                elif start is not None and depth == len(scopes):
                    found.append((name, start, ln - start + 1))
                    start = None
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--max-file', type=int, default=599)
    ap.add_argument('--max-function', type=int, default=100)
    args = ap.parse_args()
    paths = sorted(glob.glob('src/*.c') + glob.glob('src/core/*/*.[ch]') +
                   glob.glob('src/core/*/*.cu') + glob.glob('src/core/*/*.cuh'))
    over = 0
    for p in paths:
        n = sum(1 for _ in open(p, encoding='utf-8'))
        if n > args.max_file:
            print(f'{p}: {n} lines (file)')
            over += 1
        for name, line, length in functions(p):
            if length > args.max_function:
                print(f'{p}:{line}: {name}: {length} lines')
                over += 1
    print(f'check-sizes: {over} over the limits (files < {args.max_file + 1} lines, '
          f'functions <= {args.max_function} lines)')
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
