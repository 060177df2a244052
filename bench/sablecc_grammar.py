#!/usr/bin/env python3
"""Writes a synthetic SableCC grammar big enough that Debian's SableCC 3.7
(`apt-get install sablecc`) works for several seconds compiling it: N
keywords, a statement and a factor alternative per keyword. Used to measure
the fourth paper's analyses on a real program (docs/fields.md, docs/alloc.md):

    python3 bench/sablecc_grammar.py 120 > big.sablecc
    mkdir -p out && java -jar /usr/share/java/sablecc.jar -d out big.sablecc
"""
import sys


def grammar(n):
    lines = ["Package gen;", "", "Helpers", " letter = ['a'..'z'];", " digit = ['0'..'9'];", "",
             "Tokens"]
    lines += [" kw%d = 'key%d';" % (i, i) for i in range(n)]
    lines += [" id = letter (letter | digit)*;", " number = digit+;", " plus = '+';",
              " star = '*';", " lpar = '(';", " rpar = ')';", " semi = ';';",
              " blank = (' ' | 10 | 13 | 9)+;", "", "Ignored Tokens", " blank;", "",
              "Productions", " program = stmt*;"]
    lines.append(" stmt = " + " | ".join("{s%d} kw%d expr semi" % (i, i) for i in range(n)) + ";")
    lines.append(" expr = {plus} expr plus term | {term} term;")
    lines.append(" term = {star} term star factor | {factor} factor;")
    lines.append(" factor = {id} id | {num} number | {paren} lpar expr rpar | " +
                 " | ".join("{f%d} kw%d lpar expr rpar" % (i, i) for i in range(n)) + ";")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(grammar(int(sys.argv[1]) if len(sys.argv) > 1 else 120))
