#!/usr/bin/python3
"""gen_wrappers.py — generates the runtime's C and Fortran MPI wrappers, the
list of rules, the role bits and struct rt_args from
include/scalana/mpi_calls.def (the one table of MPI calls and of their
argument roles).

Every wrapper has the same shape: pass through when the runtime is off or
re-entered -> fill the call's arguments by role -> rt_call_enter (timestamp,
calling context) -> PMPI_ -> rt_call_exit (charge by rule).  The generator
knows nothing about individual calls or roles; everything comes from the
tables (a role's Fortran conversion is one of F_CONVERSIONS, named by the
role table).

Each MPI library gets the wrappers of what its own mpi.h declares: DECLS is
that header run through the C preprocessor (runtime/CMakeLists.txt does it
when the runtime for the library is configured); a call is wrapped when
PMPI_<Name> is declared there, its large-count twin MPI_<Name>_c (flag
bigcount) when PMPI_<Name>_c is.  Without DECLS every call of MPI-3.1 is
wrapped and nothing newer (the table's since=4.0).

usage: gen_wrappers.py mpi_calls.def OUT_DIR [DECLS]
writes OUT_DIR/rt_wrappers.c, OUT_DIR/rt_fortran_wrappers.c,
OUT_DIR/rt_wrapped_names.c, OUT_DIR/rt_rules.h, OUT_DIR/rt_args.h and
OUT_DIR/wrapped.txt (the C entry points wrapped, one a line: docs/runtime.md's
table of families by library is made from it, scripts/mpi_families.py)"""
import os
import re
import sys

LINE = re.compile(r'^SCALANA_MPI_CALL\(\s*(\d+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*"([^"]*)"\s*\)\s*$')

ROLES = {}  # the role table (parse_roles), filled by main()


def measured(role):
    """The runtime reads this role: a struct rt_args field and an RT_ROLE_ bit."""
    return ROLES[role]["type"] != ""


def role_mask(roles):
    return " | ".join(f"RT_ROLE_{r.upper()}" for r in roles if measured(r)) or "0"


ROLE_LINE = re.compile(r'^SCALANA_MPI_ROLE\(\s*(\w+)\s*,' + r'\s*"([^"]*)"\s*,' * 4 + r'\s*"([^"]*)"\s*\)\s*$')


def table_lines(path, prefix, regex):
    """(line number, match) of every line of the table file starting with
    prefix; a line that does not match regex stops the build."""
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.strip()
            if not line.startswith(prefix):
                continue
            m = regex.match(line)
            if not m:
                sys.exit(f"{path}:{no}: cannot parse: {line}")
            yield no, m


def parse_roles(path):
    """The role table of mpi_calls.def: role -> dict(type, ptr_field, ptr_type,
    fortran, meaning), in table order.  A role with an empty type documents an
    argument the runtime does not read (no struct field, no RT_ROLE_ bit)."""
    roles = {}
    for no, m in table_lines(path, "SCALANA_MPI_ROLE(", ROLE_LINE):
        name, ctype, ptr, cconv, fortran, meaning = m.groups()
        pf, _, pt = ptr.partition(":")
        conv = fortran.split()
        if not conv or conv[0] not in F_CONVERSIONS:
            sys.exit(f"{path}:{no}: role {name}: unknown Fortran conversion '{fortran}'")
        if cconv not in C_CONVERSIONS:
            sys.exit(f"{path}:{no}: role {name}: unknown C conversion '{cconv}'")
        roles[name] = dict(type=ctype, ptr_field=pf, ptr_type=pt.strip(), c=cconv, fortran=conv,
                           meaning=meaning)
    if not roles:
        sys.exit(f"{path}: no SCALANA_MPI_ROLE lines")
    return roles


def parse(path, table):
    calls = []
    for no, m in table_lines(path, "SCALANA_MPI_CALL(", LINE):
        code, name, cls, flags, params, roles = m.groups()
        flags = flags.split()
        rule = "none"
        since = "3.1"
        for fl in flags:
            if fl.startswith("rule="):
                rule = fl[5:]
            if fl.startswith("since="):
                since = fl[6:]
        plist = []
        if params.strip() and params.strip() != "void":
            for p in split_params(params):
                if p.strip() == "...":
                    plist.append(("...", "...", "..."))
                    continue
                pm = re.match(r'^(.*?)(\w+)\s*((?:\[[^\]]*\])*)$', p.strip())
                if not pm:
                    sys.exit(f"{path}:{no}: cannot parse parameter '{p}'")
                plist.append((p.strip(), pm.group(2), pm.group(1).strip() + pm.group(3)))
        rmap = {}
        for r in roles.split():
            k, _, v = r.partition("=")
            if k not in table:
                sys.exit(f"{path}:{no}: unknown role '{k}' (not in the role table)")
            if v not in [p[1] for p in plist]:
                sys.exit(f"{path}:{no}: role {k} names no parameter '{v}'")
            rmap[k] = v
        calls.append(dict(code=int(code), name=name, cls=cls, flags=flags, rule=rule,
                          params=plist, roles=rmap, raw=params, since=since))
    return calls


# ---- large-count twins (MPI-4.0) ----------------------------------------------
# MPI_<Name>_c has <Name>'s parameters with every element count an MPI_Count,
# every count array a const MPI_Count[], every displacement array a const
# MPI_Aint[] and a window's disp_unit an MPI_Aint (MPI-4.0, chapter 2.5.8
# "large counts").  The compiler checks the result against the library's own
# prototype.  A role R reads the twin's argument through field R_c when the
# role table has one (an array of MPI_Count instead of int).
def twin_type(pname, ptype):
    base = ptype.replace("const", "").replace("[]", "").strip()
    if base != "int":
        return ptype
    if "[]" in ptype:
        if "counts" in pname:
            return "const MPI_Count[]"
        if "displs" in pname:
            return "const MPI_Aint[]"
        return ptype
    if pname.endswith("count") or pname == "disp_unit":
        return "MPI_Count" if pname != "disp_unit" else "MPI_Aint"
    return ptype


def twin(c):
    plist, raw = [], []
    for full, pname, ptype in c["params"]:
        t = twin_type(pname, ptype)
        if t == ptype:
            plist.append((full, pname, ptype))
            raw.append(full)
            continue
        arr = t.endswith("[]")
        decl = f"{t[:-2]} {pname}[]" if arr else f"{t} {pname}"
        plist.append((decl, pname, t))
        raw.append(decl)
    types = {p[1]: p[2] for p in c["params"]}
    newtypes = {p[1]: p[2] for p in plist}
    roles = {}
    for r, v in c["roles"].items():
        changed = newtypes[v] != types[v] and newtypes[v].endswith("[]")
        roles[r + "_c" if changed and r + "_c" in ROLES else r] = v
    return dict(c, name=c["name"] + "_c", params=plist, raw=", ".join(raw), roles=roles, since="4.0",
                twin_of=c["name"], flags=[f for f in c["flags"]] + ["nofortran"])


def declared_names(path):
    """Names N for which the preprocessed mpi.h at path declares PMPI_N(."""
    with open(path, errors="replace") as f:
        return set(re.findall(r"\bPMPI_(\w+)\s*\(", f.read()))


def wrapped_calls(calls, declared):
    """The calls this library gets wrappers for, twins included, in table
    order (a twin after its call)."""
    out = []
    for c in calls:
        if "nowrap" in c["flags"]:
            continue
        if declared is None:
            ok = c["since"] in ("1.0", "2.0", "2.2", "3.0", "3.1")
        else:
            ok = c["name"] in declared
        if ok:
            out.append(c)
        if "bigcount" in c["flags"] and declared is not None and c["name"] + "_c" in declared:
            out.append(twin(c))
    return out


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    if cur.strip():
        out.append(cur)
    return out


# How the C wrapper fills a role's field: the role table's "c" column names
# one of these; each returns the lines now and the lines after every other
# role.  x: role, p (parameter), field, n (the call's nreq parameter), ptr
# (the parameter is a pointer).
C_CONVERSIONS = {
    "": lambda x: ([f"c_.a.{x['field']} = {x['p']};"], []),
    # The private status names no source until the library fills it: MPICH
    # 4.0.2 leaves an Isendrecv's status unwritten (rt_complete.c).
    "status": lambda x: (["MPI_Status st_;", f"if ({x['p']} == MPI_STATUS_IGNORE) {{",
                          "    st_.MPI_SOURCE = MPI_ANY_SOURCE;", "    st_.MPI_TAG = MPI_ANY_TAG;",
                          f"    {x['p']} = &st_;", "}", f"c_.a.{x['field']} = {x['p']};"], []),
    "statuses": lambda x: ([f"if ({x['p']} == MPI_STATUSES_IGNORE)",
                            f"    {x['p']} = rt_scratch_statuses(&c_, {x['n']});",
                            f"c_.a.{x['field']} = {x['p']};"], []),
    "late": lambda x: ([], [f"c_.a.{x['field']} = {x['p']};"]),
    # MPI_Request_get_status takes the request by value
    "byvalue": lambda x: ([f"c_.a.{x['field']} = {x['p']};" if x["ptr"] else f"c_.a.{x['field']} = &{x['p']};"], []),
}


def wrapper(c):
    name, params = c["name"], c["params"]
    args = ", ".join(p[1] for p in params)
    ptype = {p[1]: p[2] for p in params}
    roles = c["roles"]
    rolemask = role_mask(roles)
    flags = []
    if "nonblocking" in c["flags"]:
        flags.append("RT_CALL_NONBLOCKING")
    if "persistent" in c["flags"]:
        flags.append("RT_CALL_PERSISTENT")
    flags = " | ".join(flags) or "0"
    o = []
    o.append(f"/* MPI_{name}: code {c['code']}, class {c['cls']}, rule {c['rule']} */")
    o.append(f"RT_EXPORT int MPI_{name}({c['raw']})")
    o.append("{")
    o.append("    if (!rt_wrap_enabled())")
    o.append(f"        return PMPI_{name}({args});")
    o.append(f"    struct rt_call c_ = {{.op = {c['code']}, .rule = RT_RULE_{c['rule'].upper()}, "
             f".flags = {flags}, .roles = {rolemask}}};")
    late = []
    for role, param in roles.items():
        if not measured(role):
            continue
        field = role
        if ROLES[role]["ptr_field"] and "*" in ptype[param]:
            field = ROLES[role]["ptr_field"]
        x = dict(role=role, p=param, field=field, n=roles.get("nreq"), ptr="*" in ptype[param])
        now, after = C_CONVERSIONS[ROLES[role]["c"]](x)
        o += ["    " + line for line in now]
        late += ["    " + line for line in after]
    o += late
    o.append("    rt_call_enter(&c_);")
    if c["rule"] == "waitall":
        o.append("    if (rt_opt.waitall_split && c_.a.statuses != MPI_STATUSES_IGNORE)")
        o.append(f"        c_.rc = rt_waitall_split(&c_);")
        o.append("    else")
        o.append(f"        c_.rc = PMPI_{name}({args});")
    else:
        o.append(f"    c_.rc = PMPI_{name}({args});")
    o.append("    rt_call_exit(&c_);")
    o.append("    return c_.rc;")
    o.append("}")
    return "\n".join(o)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    ROLES.update(parse_roles(sys.argv[1]))
    calls = parse(sys.argv[1], ROLES)
    declared = declared_names(sys.argv[3]) if len(sys.argv) == 4 else None
    wrapped = wrapped_calls(calls, declared)
    codes = [c["code"] for c in calls]
    if len(set(codes)) != len(codes):
        sys.exit("mpi_calls.def: a code is used twice")
    if codes != sorted(codes):
        sys.exit("mpi_calls.def: codes must ascend (mpi_ops.c searches by code)")
    os.makedirs(sys.argv[2], exist_ok=True)
    rules = sorted({c["rule"] for c in calls if "nowrap" not in c["flags"]} | {"none"})
    with open(os.path.join(sys.argv[2], "rt_rules.h"), "w") as f:
        f.write("/* rt_rules.h — generated by runtime/mpi/gen_wrappers.py from mpi_calls.def; do not edit. */\n")
        f.write("#ifndef SCALANA_RT_RULES_H\n#define SCALANA_RT_RULES_H\nenum rt_rule {\n")
        for i, r in enumerate(rules):
            f.write(f"    RT_RULE_{r.upper()} = {i},\n")
        f.write("};\n")
        roles = sorted(r for r in ROLES if measured(r))
        for i, r in enumerate(roles):
            f.write(f"#define RT_ROLE_{r.upper()} (1ull << {i})\n")
        f.write("#endif\n")
    write_args(sys.argv[2])
    with open(os.path.join(sys.argv[2], "rt_wrappers.c"), "w") as f:
        f.write("/* rt_wrappers.c — generated by runtime/mpi/gen_wrappers.py from\n"
                " * include/scalana/mpi_calls.def; do not edit.  One wrapper per measured call. */\n")
        f.write('#include "mpi/rt_mpi.h"\n\n')
        n = 0
        for c in wrapped:
            if "manual" in c["flags"]:
                continue
            f.write(wrapper(c) + "\n\n")
            n += 1
    # Every entry point the runtime defines (C and the first Fortran
    # mangling), for rt_shadow.c: which of them resolve elsewhere.  A file
    # of its own: data only, so rt_shadow.c depends on no wrapper code.
    names = [f"MPI_{c['name']}" for c in wrapped]
    names += [f"mpi_{c['name'].lower()}_" for c in wrapped
              if not any(x in c["flags"] for x in ("manual", "nofortran"))]
    names += ["mpi_init_", "mpi_init_thread_", "mpi_finalize_"]
    with open(os.path.join(sys.argv[2], "rt_wrapped_names.c"), "w") as f:
        f.write("/* rt_wrapped_names.c — generated by runtime/mpi/gen_wrappers.py from\n"
                " * include/scalana/mpi_calls.def; do not edit.  The MPI entry points the\n"
                " * runtime defines (C, and Fortran in its first mangling). */\n")
        f.write('#include "mpi/rt_mpi.h"\n\n')
        f.write("const char *const rt_wrapped_names[] = {\n")
        for nm in names:
            f.write(f'    "{nm}",\n')
        f.write("};\n")
        f.write(f"const unsigned rt_wrapped_count = {len(names)};\n")
    with open(os.path.join(sys.argv[2], "wrapped.txt"), "w") as f:
        for c in wrapped:
            f.write(f"MPI_{c['name']}\n")
    nf = write_fortran(wrapped, sys.argv[2])
    print(f"gen_wrappers.py: {n} C wrappers, {nf} Fortran wrappers, {len(rules)} rules")



def write_args(outdir):
    """struct rt_args: one field per measured role (and its pointer field),
    in role-table order."""
    with open(os.path.join(outdir, "rt_args.h"), "w") as f:
        f.write("/* rt_args.h — generated by runtime/mpi/gen_wrappers.py from the role table of\n"
                " * include/scalana/mpi_calls.def; do not edit. */\n")
        f.write("#ifndef SCALANA_RT_ARGS_H\n#define SCALANA_RT_ARGS_H\n#include <mpi.h>\n\n")
        f.write("/* Arguments of one MPI call by role; RT_ROLE_<ROLE> (rt_rules.h) says which\n"
                " * fields the wrapper filled. */\nstruct rt_args {\n")
        for r, d in ROLES.items():
            if not measured(r):
                continue
            t = d["type"]
            sep = "" if t.endswith("*") else " "
            f.write(f"    {t}{sep}{r}; /* {d['meaning']} */\n")
            if d["ptr_field"]:
                pt = d["ptr_type"]
                sep = "" if pt.endswith("*") else " "
                f.write(f"    {pt}{sep}{d['ptr_field']}; /* {d['meaning']}, passed by pointer */\n")
        f.write("};\n#endif\n")


# ---- Fortran ------------------------------------------------------------------
# Every C parameter becomes a pointer in the Fortran bindings (mpif.h, use mpi,
# mpi_f08); handles are MPI_Fint.  The role table says how to convert each.
F_MANGLINGS = [("{l}_", "p{l}_"), ("{l}__", "p{l}__"), ("{l}", "p{l}"), ("{u}", "P{u}"),
               ("{l}" + "@F08@", "p{l}" + "@F08@"), ("{l}" + "@F08B@", "p{l}" + "@F08B@")]


def f_param_type(ctype):
    t = ctype.replace("const", "").strip()
    if t.startswith("void"):
        return "void *"
    if "MPI_Aint" in t:
        return "MPI_Aint *"
    if "MPI_Offset" in t:
        return "MPI_Offset *"
    if "MPI_Count" in t:
        return "MPI_Count *"
    return "MPI_Fint *"


def f_f2c(x, args, role):
    """A handle converted with PMPI_<H>_f2c: into the field itself, or, when
    the field is a pointer (or the call passes the handle by pointer), into a
    local variable the field points to, converted back after the call."""
    h, var = args[0], (args[1] if len(args) > 1 else None)
    if var and (role["type"].endswith("*") or x["field"] != x["role"]):
        ctype = "MPI_" + ("Datatype" if h == "Type" else h)
        return ([f"{ctype} {var} = PMPI_{h}_f2c(*{x['p']});", f"c_.a.{x['field']} = &{var};"],
                [f"{var} = PMPI_{h}_f2c(*{x['p']});"])
    return [f"c_.a.{x['role']} = PMPI_{h}_f2c(*{x['p']});"], []


# Every C parameter becomes a pointer in the Fortran bindings; the role
# table's "fortran" column names one of these conversions.  Each returns the
# lines before the call and after it; x: role, p (parameter), n (the call's
# nreq parameter), out (its outcount parameter), field.
F_CONVERSIONS = {
    "buffer": lambda x, a, r: ([f"c_.a.{x['role']} = rt_f_in_place(v, {x['p']}) ? MPI_IN_PLACE : {x['p']};"], []),
    "int": lambda x, a, r: ([f"c_.a.{x['role']} = *{x['p']};"], []),  # an INTEGER, or INTEGER(MPI_COUNT_KIND) of a partitioned call
    "int_array": lambda x, a, r: ([f"c_.a.{x['role']} = (const int *){x['p']};"], []),
    "int_out": lambda x, a, r: ([f"c_.a.{x['role']} = (int *){x['p']};"], []),
    "none": lambda x, a, r: ([], []),
    "types": lambda x, a, r: ([], []),  # rt_f_types once the communicator is known (below)
    "f2c": f_f2c,
    "newcomm": lambda x, a, r: ([f"MPI_Comm nc_ = PMPI_Comm_f2c(*{x['p']});", "c_.a.newcomm = &nc_;",
                                 f"c_.f_newcomm = {x['p']};"],
                                [f"nc_ = PMPI_Comm_f2c(*{x['p']});"]),
    "requests": lambda x, a, r: ([f"MPI_Request *rqs_ = rt_f_requests(*{x['n']}, {x['p']});",
                                  "c_.a.requests = rqs_;", "c_.a.nreq = rqs_ ? c_.a.nreq : 0;"], []),
    "status": lambda x, a, r: (["MPI_Fint fst_[RT_F_STATUS_MAX];", "MPI_Status cst_;",
                                f"if (rt_f_status_ignored({x['p']}))", f"    {x['p']} = fst_;",
                                "c_.a.status = &cst_;"],
                               [f"PMPI_Status_f2c({x['p']}, &cst_);"]),
    "statuses": lambda x, a, r: ([f"if (rt_f_statuses_ignored({x['p']}))",
                                  f"    {x['p']} = rt_f_status_scratch(*{x['n']});",
                                  f"MPI_Status *csts_ = {x['p']} ? rt_scratch_statuses(&c_, *{x['n']}) : MPI_STATUSES_IGNORE;",
                                  "c_.a.statuses = csts_;"],
                                 [f"if ({x['p']} && csts_ != MPI_STATUSES_IGNORE)",
                                  f"    for (int i_ = 0; i_ < *{x['n']}; i_++)",
                                  f"        PMPI_Status_f2c({x['p']} + (size_t)i_ * RT_F_STATUS_SIZE, &csts_[i_]);"]),
    "index": lambda x, a, r: (["int ix_ = MPI_UNDEFINED;", "c_.a.index = &ix_;"],
                              [f"ix_ = rt_f_index(v, c_.rule, *{x['p']});"]),
    "indices": lambda x, a, r: ([f"int *ixs_ = rt_f_indices(*{x['n']});", "c_.a.indices = ixs_;"],
                                [f"if (ixs_ && *{x['out']} != MPI_UNDEFINED)",
                                 f"    for (int i_ = 0; i_ < *{x['out']}; i_++)",
                                 f"        ixs_[i_] = rt_f_index(v, c_.rule, {x['p']}[i_]);"]),
}


def f_wrapper(c):
    name, params, roles = c["name"], c["params"], c["roles"]
    byname = {p[1]: p for p in params}
    fparams = [(f_param_type(p[2]), p[1]) for p in params]
    decl = ", ".join(f"{t}{n}" if t.endswith("*") else f"{t} {n}" for t, n in fparams)
    decl = (decl + ", " if decl else "") + "MPI_Fint *ierr"
    names = ", ".join(n for _, n in fparams)
    fwd = dict((n, n) for _, n in fparams)
    tdef = ", ".join(t for t, _ in fparams)
    tdef = (tdef + ", " if tdef else "") + "MPI_Fint *"
    rolemask = role_mask(roles)
    flags = ["RT_CALL_FORTRAN"]
    if "nonblocking" in c["flags"]:
        flags.append("RT_CALL_NONBLOCKING")
    if "persistent" in c["flags"]:
        flags.append("RT_CALL_PERSISTENT")
    pre, post = [], []
    for role, p in roles.items():
        conv = ROLES[role]["fortran"]
        ctype = byname[p][2]
        ptr = "*" in ctype.replace("[]", "*")
        ctx = dict(role=role, p=p, n=roles.get("nreq"), out=roles.get("outcount"),
                   field=ROLES[role]["ptr_field"] if ptr and ROLES[role]["ptr_field"] else role)
        pr, po = F_CONVERSIONS[conv[0]](ctx, conv[1:], ROLES[role])
        pre += pr
        post += po
    if "stypes" in roles or "rtypes" in roles:
        st = roles.get("stypes")
        rt = roles.get("rtypes")
        pre.append(f"rt_f_types(&c_, {st or 'NULL'}, {rt or 'NULL'});")
    lname = name.lower()
    o = [f"/* Fortran MPI_{name}: mpif.h, use mpi and mpi_f08 manglings */"]
    o.append(f"typedef void (*rt_f_{name}_fn)({tdef});")
    o.append(f"static void rt_f_{name}(int v, {decl})")
    o.append("{")
    o.append(f"    static void *real[RT_F_VARIANTS];")
    o.append(f'    rt_f_{name}_fn f = (rt_f_{name}_fn)rt_f_real(v, "{lname}", real);')
    o.append("    if (!f) {")
    o.append("        if (ierr)")
    o.append("            *ierr = MPI_ERR_INTERN;")
    o.append("        return;")
    o.append("    }")
    o.append("    if (!rt_wrap_enabled()) {")
    o.append(f"        f({names + ', ' if names else ''}ierr);")
    o.append("        return;")
    o.append("    }")
    o.append(f"    struct rt_call c_ = {{.op = {c['code']}, .rule = RT_RULE_{c['rule'].upper()}, "
             f".flags = {' | '.join(flags)}, .roles = {rolemask}}};")
    o += ["    " + s for s in pre]
    o.append("    rt_call_enter(&c_);")
    call = f"f({', '.join(fwd[n] for _, n in fparams) + ', ' if fparams else ''}ierr);"
    if c["rule"] == "waitall":
        # Completed in C through the Waitsome loop, handles converted back.
        n, rq, st = roles["nreq"], roles["requests"], roles["statuses"]
        # Not once errors can reach the application: then its own Fortran
        # Waitall (the library's Fortran statuses on error, rt_errh.c).
        o.append("    if (rt_opt.waitall_split && !rt_errors_visible && rqs_ && csts_ != MPI_STATUSES_IGNORE) {")
        o.append("        c_.rc = rt_waitall_split(&c_);")
        o.append(f"        rt_f_requests_back(*{n}, {rq}, rqs_, {st}, csts_);")
        o.append("        if (ierr)")
        o.append("            *ierr = c_.rc;")
        o.append("        rt_call_exit(&c_);")
        o.append("        return;")
        o.append("    }")
    o.append(f"    {call}")
    o.append("    c_.rc = ierr ? (int)*ierr : MPI_SUCCESS;")
    o += ["    " + s for s in post]
    o.append("    rt_call_exit(&c_);")
    o.append("}")
    for i, (ex, _) in enumerate(F_MANGLINGS):
        sym = ex.format(l="mpi_" + lname, u="MPI_" + name.upper())
        if "@F08@" in sym:
            sym = sym.replace("@F08@", "")
            o.append(f"RT_EXPORT void RT_F08_NAME({sym})({decl}) {{ rt_f_{name}({i}, {names + ', ' if names else ''}ierr); }}")
        elif "@F08B@" in sym:
            sym = sym.replace("@F08B@", "")
            o.append("#ifdef RT_F08B_NAME")
            o.append(f"RT_EXPORT void RT_F08B_NAME({sym})({decl}) {{ rt_f_{name}({i}, {names + ', ' if names else ''}ierr); }}")
            o.append("#endif")
        else:
            o.append(f"RT_EXPORT void {sym}({decl}) {{ rt_f_{name}({i}, {names + ', ' if names else ''}ierr); }}")
    return "\n".join(o)


def write_fortran(calls, outdir):
    with open(os.path.join(outdir, "rt_fortran_wrappers.c"), "w") as f:
        f.write("/* rt_fortran_wrappers.c — generated by runtime/mpi/gen_wrappers.py from\n"
                " * include/scalana/mpi_calls.def; do not edit.  Fortran entry points of every\n"
                " * measured call, forwarding to the library's own Fortran PMPI entry. */\n")
        f.write('#include "mpi/rt_fortran.h"\n\n')
        n = 0
        for c in calls:
            if any(x in c["flags"] for x in ("manual", "nofortran")):
                continue
            f.write(f_wrapper(c) + "\n\n")
            n += 1
    return n


if __name__ == "__main__":
    main()
