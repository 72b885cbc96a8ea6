use mcp_elicit::Elicit;

/// Describe the sensor.
#[derive(Elicit)]
struct Sensor {
    serial: u128,
    grade: char,
}

fn main() {}
