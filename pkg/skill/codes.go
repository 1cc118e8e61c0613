package skill

// Diagnostic codes. They are stable: scripts filter on them and the JSON
// output carries them. Each rule's severity in strict mode and whether it
// still stops a lenient load are in the rules table below.
const (
	CodeNoSkillFile         = "no-skill-file"
	CodeLowercaseSkillFile  = "lowercase-skill-file"
	CodeUnreadable          = "unreadable"
	CodeFrontmatterMissing  = "frontmatter-missing"
	CodeFrontmatterUnclosed = "frontmatter-unclosed"
	CodeContentBeforeFront  = "content-before-frontmatter"
	CodeFrontmatterTooLarge = "frontmatter-too-large"
	CodeYAMLSyntax          = "yaml-syntax"
	// CodeYAMLUnquoted: a top-level value YAML cannot read as written
	// (an unquoted ": "), read as the text the hosts read.
	CodeYAMLUnquoted = "yaml-unquoted-value"
	// CodeBlankBeforeFront: blank lines before the opening ---.
	CodeBlankBeforeFront   = "blank-before-frontmatter"
	CodeYAMLAlias          = "yaml-alias"
	CodeYAMLMergeKey       = "yaml-merge-key"
	CodeDuplicateKey       = "duplicate-key"
	CodeKeyNotScalar       = "yaml-key-not-scalar"
	CodeFrontmatterNotMap  = "frontmatter-not-mapping"
	CodeBodyTooLong        = "body-too-long"
	CodeNameMissing        = "name-missing"
	CodeNameInvalid        = "name-invalid"
	CodeNameMismatch       = "name-mismatch"
	CodeDescriptionMissing = "description-missing"
	CodeDescriptionTooLong = "description-too-long"
	// CodeDescriptionPlaceholder is init's placeholder description, left
	// unedited: a warning, an error for publishing.
	CodeDescriptionPlaceholder = "description-placeholder"
	CodeLicenseType            = "license-type"
	CodeVersionMissing         = "version-missing"
	CodeVersionNumber          = "version-number"
	CodeVersionInvalid         = "version-invalid"
	CodeVersionUnpublishable   = "version-unpublishable"
	CodeCompatibility          = "compatibility-invalid"
	CodeAllowedTools           = "allowed-tools-invalid"
	// CodeAllowedToolsUndeclared: allowed-tools amounts to permissions
	// that are not declared.
	CodeAllowedToolsUndeclared = "allowed-tools-undeclared"
	// CodeAllowedToolsUnknown: allowed-tools names tools skillpm cannot map.
	CodeAllowedToolsUnknown  = "allowed-tools-unknown"
	CodeMetadataType         = "metadata-type"
	CodeUnknownField         = "unknown-field"
	CodeGaiaType             = "gaia-type"
	CodeGaiaUnknownField     = "gaia-unknown-field"
	CodeTierInvalid          = "tier-invalid"
	CodePermissionInvalid    = "permission-invalid"
	CodePermissionDuplicate  = "permission-duplicate"
	CodeShellScope           = "shell-scope-not-binary"
	CodeRequirementInvalid   = "requirement-invalid"
	CodeSkillRangeInvalid    = "skill-range-invalid"
	CodeSkillDepInvalid      = "skill-dependency-invalid"
	CodeExecutionInvalid     = "execution-invalid"
	CodeCallInvalid          = "call-invalid"
	CodeStepPathInvalid      = "step-path-invalid"
	CodeStepMissing          = "step-missing"
	CodeAskUserOnSkill       = "ask-user-on-skill"
	CodeImplicitDependency   = "implicit-dependency"
	CodeToolInvalid          = "tool-invalid"
	CodeToolDuplicate        = "tool-duplicate"
	CodeToolsPyMissing       = "tools-py-missing"
	CodeToolsPySyntax        = "tools-py-syntax"
	CodeToolNotImplemented   = "tool-not-implemented"
	CodeToolNotDeclared      = "tool-not-declared"
	CodeToolParamMismatch    = "tool-param-mismatch"
	CodeToolParamRequired    = "tool-param-required"
	CodeToolParamType        = "tool-param-type"
	CodeToolsRequiredInvalid = "tools-required-invalid"
	CodeToolUnknown          = "tool-unknown"
	CodeSymlink              = "symlink"
	// CodeGaiaRefused: a permission GAIA's loader refuses although the
	// format allows it (Options.GaiaLoader).
	CodeGaiaRefused = "gaia-refused"
)

// rule says how a code is reported in each mode.
type rule struct {
	strict Severity
	// fatal keeps the diagnostic an error in lenient mode: the skill cannot be
	// used at all (no frontmatter, no description, an execution that cannot
	// run, a permission that cannot be parsed).
	fatal bool
}

var rules = map[string]rule{
	CodeNoSkillFile:        {Error, true},
	CodeLowercaseSkillFile: {Error, true}, // no host loads it on a case-sensitive file system

	CodeUnreadable:             {Error, true},
	CodeFrontmatterMissing:     {Error, true},
	CodeFrontmatterUnclosed:    {Error, true},
	CodeContentBeforeFront:     {Error, true},
	CodeFrontmatterTooLarge:    {Error, true},
	CodeYAMLSyntax:             {Error, true},
	CodeYAMLUnquoted:           {Error, false}, // Claude Code, Codex and OpenCode read it as text
	CodeBlankBeforeFront:       {Error, true},  // Claude Code, Codex and OpenCode drop the skill
	CodeYAMLAlias:              {Error, false}, // lenient: GAIA's PyYAML loads them; bounded expansion
	CodeYAMLMergeKey:           {Error, false},
	CodeDuplicateKey:           {Error, true},
	CodeKeyNotScalar:           {Error, true}, // GAIA (PyYAML) cannot load an unhashable key
	CodeFrontmatterNotMap:      {Error, true},
	CodeBodyTooLong:            {Warning, false},
	CodeNameMissing:            {Error, false},
	CodeNameInvalid:            {Error, false},
	CodeNameMismatch:           {Error, false},
	CodeDescriptionMissing:     {Error, true},
	CodeDescriptionTooLong:     {Error, false},
	CodeDescriptionPlaceholder: {Warning, false},
	CodeLicenseType:            {Error, false}, // GAIA refuses a non-string license
	CodeVersionMissing:         {Warning, false},
	CodeVersionNumber:          {Error, false},
	CodeVersionInvalid:         {Error, false},
	CodeVersionUnpublishable:   {Warning, false},
	CodeCompatibility:          {Error, false},
	CodeAllowedTools:           {Warning, false},
	CodeAllowedToolsUndeclared: {Warning, false},
	CodeAllowedToolsUnknown:    {Warning, false},
	CodeMetadataType:           {Error, false},
	CodeUnknownField:           {Warning, false},
	CodeGaiaType:               {Error, false},
	CodeGaiaUnknownField:       {Warning, false},
	CodeTierInvalid:            {Error, false},
	CodePermissionInvalid:      {Error, true},
	CodePermissionDuplicate:    {Warning, false},
	CodeShellScope:             {Error, false}, // GAIA refuses the whole skill
	CodeRequirementInvalid:     {Error, false},
	CodeSkillRangeInvalid:      {Error, false},
	CodeSkillDepInvalid:        {Error, false},
	CodeExecutionInvalid:       {Error, true},
	CodeCallInvalid:            {Error, true},
	CodeStepPathInvalid:        {Error, true},
	CodeStepMissing:            {Error, true},
	CodeAskUserOnSkill:         {Warning, false},
	CodeImplicitDependency:     {Warning, false},
	CodeToolInvalid:            {Error, false},
	CodeToolDuplicate:          {Error, false},
	CodeToolsPyMissing:         {Error, false},
	CodeToolsPySyntax:          {Error, false},
	CodeToolNotImplemented:     {Error, false},
	CodeToolNotDeclared:        {Error, false},
	CodeToolParamMismatch:      {Error, false},
	CodeToolParamRequired:      {Error, false},
	CodeToolParamType:          {Error, false},
	CodeToolsRequiredInvalid:   {Error, false},
	CodeToolUnknown:            {Error, false},
	CodeSymlink:                {Error, false},
	CodeGaiaRefused:            {Error, false}, // only with Options.GaiaLoader
}

// Codes returns every diagnostic code skillpm can report, sorted.
func Codes() []string {
	out := make([]string, 0, len(rules))
	for c := range rules {
		out = append(out, c)
	}
	sortStrings(out)
	return out
}

// severityFor returns the severity a code has in the given mode.
func severityFor(code string, mode Mode) Severity {
	r, ok := rules[code]
	if !ok {
		return Error
	}
	if mode == Lenient && r.strict == Error && !r.fatal {
		return Warning
	}
	return r.strict
}
