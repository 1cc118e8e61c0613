package skill

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ToolsFile is the Python module that implements a skill's provided tools.
const ToolsFile = "tools.py"

// checkToolsPy checks that metadata.gaia.tools and the @tool functions of
// tools.py describe the same tools with the same signatures.
func (c *checker) checkToolsPy(s *Skill) {
	file := filepath.Join(s.Dir, ToolsFile)
	data, err := readBounded(file, maxSkillFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		if len(s.Gaia.Tools) > 0 {
			t := s.Gaia.Tools[0]
			c.addAt(CodeToolsPyMissing, t.Line, t.Column,
				fmt.Sprintf("metadata.gaia.tools declares %d tools but the skill has no %s", len(s.Gaia.Tools), ToolsFile),
				"add tools.py with a @tool function for each declared tool, or remove the declarations")
		}
		return
	}
	if err != nil {
		c.ds = append(c.ds, Diagnostic{Code: CodeToolsPySyntax, File: file, Message: err.Error(), Hint: "check the file's permissions"})
		return
	}
	funcs, err := ParsePythonFuncs(data)
	if err != nil {
		d := Diagnostic{Code: CodeToolsPySyntax, File: file, Message: "cannot read function signatures: " + err.Error(),
			Hint: "fix the Python syntax (python3 -m py_compile tools.py shows it)"}
		var se *PySyntaxError
		if errors.As(err, &se) {
			d.Line, d.Message = se.Line, "cannot read function signatures: "+se.Msg
		}
		c.ds = append(c.ds, d)
		return
	}
	impl := map[string]PyFunc{}
	for _, f := range funcs {
		if f.IsTool() {
			impl[f.Name] = f
		}
	}
	declared := map[string]bool{}
	for _, t := range s.Gaia.Tools {
		declared[t.Name] = true
		f, ok := impl[t.Name]
		if !ok {
			c.addAt(CodeToolNotImplemented, t.Line, t.Column, fmt.Sprintf("tool %s has no @tool function in %s", t.Name, ToolsFile),
				fmt.Sprintf("add @tool def %s(...) to %s, or remove the declaration", t.Name, ToolsFile))
			continue
		}
		c.compareSignature(t, f, file)
	}
	for _, f := range funcs {
		if f.IsTool() && !declared[f.Name] {
			c.ds = append(c.ds, Diagnostic{Code: CodeToolNotDeclared, File: file, Line: f.Line, Column: 1,
				Message: fmt.Sprintf("@tool function %s is not declared in metadata.gaia.tools", f.Name),
				Hint:    fmt.Sprintf("declare it: - name: %s with its parameters, or drop the @tool decorator", f.Name)})
		}
	}
}

func (c *checker) compareSignature(t Tool, f PyFunc, file string) {
	var params []PyParam
	for _, p := range f.Params {
		if p.Kind != "" || p.Name == "self" || p.Name == "cls" {
			continue // *args, **kwargs and the receiver are not tool parameters
		}
		params = append(params, p)
	}
	byName := map[string]PyParam{}
	var pyNames []string
	for _, p := range params {
		byName[p.Name] = p
		pyNames = append(pyNames, p.Name)
	}
	declared := map[string]bool{}
	for _, d := range t.Parameters {
		declared[d.Name] = true
		p, ok := byName[d.Name]
		if !ok {
			c.addAt(CodeToolParamMismatch, d.Line, d.Column,
				fmt.Sprintf("tool %s declares parameter %s, but %s:%d def %s(%s) has no such parameter", t.Name, d.Name, ToolsFile, f.Line, f.Name, strings.Join(pyNames, ", ")),
				"rename the declared parameter or add it to the function")
			continue
		}
		if optional := p.HasDefault; d.Required == optional {
			want := "required (no default)"
			if optional {
				want = "optional (it has a default)"
			}
			c.addAt(CodeToolParamRequired, d.Line, d.Column,
				fmt.Sprintf("tool %s parameter %s is declared required: %v, but in %s:%d it is %s", t.Name, d.Name, d.Required, ToolsFile, f.Line, want),
				"make required: match whether the Python parameter has a default")
		}
		if pt := PyTypeOf(p.Annotation); pt != "" && d.Type != "" && pt != d.Type {
			c.addAt(CodeToolParamType, d.Line, d.Column,
				fmt.Sprintf("tool %s parameter %s is declared %s, but %s:%d annotates it %s (%s)", t.Name, d.Name, d.Type, ToolsFile, f.Line, p.Annotation, pt),
				fmt.Sprintf("declare type: %s, or change the annotation", pt))
		}
	}
	for _, p := range params {
		if !declared[p.Name] {
			c.ds = append(c.ds, Diagnostic{Code: CodeToolParamMismatch, File: file, Line: f.Line, Column: 1,
				Message: fmt.Sprintf("%s(%s) has parameter %s that tool %s does not declare", f.Name, strings.Join(pyNames, ", "), p.Name, t.Name),
				Hint:    fmt.Sprintf("declare it under the tool's parameters: %s: { type: …, required: %v }", p.Name, !p.HasDefault)})
		}
	}
}
