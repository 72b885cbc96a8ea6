//! `rename_all` conventions, with serde's names and semantics.

/// A renaming convention for fields or variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

pub const RULE_NAMES: &[&str] = &[
    "lowercase",
    "UPPERCASE",
    "PascalCase",
    "camelCase",
    "snake_case",
    "SCREAMING_SNAKE_CASE",
    "kebab-case",
    "SCREAMING-KEBAB-CASE",
];

impl RenameRule {
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// Rename a field, written in `snake_case`.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_owned(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal | Self::Camel => {
                let mut out = String::new();
                let mut capitalize = self == Self::Pascal;
                for c in field.chars() {
                    if c == '_' {
                        capitalize = true;
                    } else if capitalize {
                        out.extend(c.to_uppercase());
                        capitalize = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// Rename a variant, written in `PascalCase`.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Self::Pascal => variant.to_owned(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => {
                let mut chars = variant.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_lowercase().chain(chars).collect()
                })
            }
            Self::Snake | Self::ScreamingSnake | Self::Kebab | Self::ScreamingKebab => {
                let mut snake = String::new();
                for (i, c) in variant.char_indices() {
                    if i > 0 && c.is_uppercase() {
                        snake.push('_');
                    }
                    snake.extend(c.to_lowercase());
                }
                match self {
                    Self::Snake => snake,
                    other => other.apply_to_field(&snake),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn fields_follow_serde() {
        assert_eq!(Camel.apply_to_field("user_name"), "userName");
        assert_eq!(Pascal.apply_to_field("user_name"), "UserName");
        assert_eq!(Kebab.apply_to_field("user_name"), "user-name");
        assert_eq!(ScreamingSnake.apply_to_field("user_name"), "USER_NAME");
        assert_eq!(ScreamingKebab.apply_to_field("user_name"), "USER-NAME");
    }

    #[test]
    fn variants_follow_serde() {
        assert_eq!(Snake.apply_to_variant("DryRun"), "dry_run");
        assert_eq!(Kebab.apply_to_variant("DryRun"), "dry-run");
        assert_eq!(Camel.apply_to_variant("DryRun"), "dryRun");
        assert_eq!(Lower.apply_to_variant("DryRun"), "dryrun");
        assert_eq!(ScreamingSnake.apply_to_variant("DryRun"), "DRY_RUN");
    }
}
