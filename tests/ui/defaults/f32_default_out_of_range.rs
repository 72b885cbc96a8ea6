use mcp_elicit::Elicit;

/// Tune the amplifier.
#[derive(Elicit)]
struct Amplifier {
    /// Beyond `f32::MAX`: a reply holding it would not fit the field.
    #[elicit(default = 1e39)]
    gain: f32,
    /// Within `f32`: fine.
    #[elicit(default = 3.4e38)]
    ceiling: f32,
    /// `f64` holds it.
    #[elicit(default = 1e39)]
    wide: f64,
}

fn main() {}
